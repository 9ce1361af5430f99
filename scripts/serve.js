// A static file server for dist/ on 127.0.0.1 (no dependencies).
'use strict';
const http = require('http');
const fs = require('fs');
const path = require('path');

const root = path.resolve(process.argv[2] || 'dist');
const port = Number(process.argv[3] || process.env.PORT || 8080);
const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ico': 'image/x-icon', '.wasm': 'application/wasm',
};

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  let file = path.normalize(path.join(root, decodeURIComponent(url.pathname)));
  if (!file.startsWith(root)) { res.writeHead(403); res.end(); return; }
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
  fs.readFile(file, (err, body) => {
    if (err) { res.writeHead(404, { 'content-type': 'text/plain' }); res.end('not found'); return; }
    // The single file is a windows-1252 document (scripts/build-web.js): a
    // charset in the header would override its own <meta charset>.
    const type = path.basename(file) === 'caliper.html' ? 'text/html; charset=windows-1252' : types[path.extname(file)];
    res.writeHead(200, { 'content-type': type || 'application/octet-stream' });
    res.end(body);
  });
});

server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`serving ${root} at http://127.0.0.1:${address.port}/\n`);
  if (process.send) process.send({ port: address.port });
});
module.exports = server;
