#!/usr/bin/env node
// Builds the web page into dist/:
//   dist/index.html (+ styles.css, js/caliper.js, caliper-engine.js,
//                   engine-wasm.js, catalog.js)  the site
//   dist/caliper.html  one self-contained file (CSS, page script, engine and
//                      catalog inlined) that works from file:// with no network
// Usage: node scripts/build-web.js --engine build-wasm/wasm/caliper-engine.js --out dist
//        [--data data] [--web web]
// The page's ES modules (web/src, entry main.js) are bundled by esbuild into
// one minified classic script (an IIFE: no modules at run time, so it runs
// from file://). Every page carries a Content-Security-Policy that allows no
// remote origin; the single file lists sha256 hashes of its inline scripts
// and style instead of 'unsafe-inline'.
'use strict';
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const zlib = require('zlib');
const esbuild = require('esbuild');

const ENTRY = 'src/main.js';  // under --web
const BUNDLE = 'js/caliper.js';  // the site's page script, under --out
const SIZE_TARGET_BYTES = 600 * 1024;

function parseArgs(argv) {
  const args = { engine: null, out: 'dist', data: 'data', web: 'web' };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in args) || i + 1 >= argv.length) throw new Error(`unknown or incomplete option: ${argv[i]}`);
    args[key] = argv[++i];
  }
  if (!args.engine) throw new Error('--engine PATH is required (the built caliper-engine.js)');
  return args;
}

function read(file) { return fs.readFileSync(file, 'utf8'); }

// The page's modules as one minified classic script. charset utf8 keeps the
// Chinese dictionary as UTF-8 text (3 bytes a character) rather than \u
// escapes (6); no legal comments (the page has none to keep).
function bundlePage(webDir) {
  const result = esbuild.buildSync({
    entryPoints: [path.join(webDir, ENTRY)], bundle: true, format: 'iife', minify: true,
    charset: 'utf8', legalComments: 'none', write: false, logLevel: 'silent', target: 'es2020', metafile: true
  });
  return { code: result.outputFiles[0].text, metafile: result.metafile };
}

// The import graph esbuild followed: file → the files it imports.
function importGraph(metafile) {
  const graph = {};
  for (const [file, info] of Object.entries(metafile.inputs)) graph[file] = info.imports.map((i) => i.path);
  return graph;
}

// Z85 (ZeroMQ RFC 32): 5 characters per 4 bytes, denser than base64's 4 per
// 3, with no quote or backslash, so it sits in a JS string as it is. The
// input is padded with zero bytes to a multiple of 4; the page trims to
// the recorded length.
const Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';
function z85Encode(bytes) {
  const padded = Buffer.concat([bytes, Buffer.alloc((4 - (bytes.length % 4)) % 4)]);
  let out = '';
  for (let i = 0; i < padded.length; i += 4) {
    let value = padded.readUInt32BE(i);
    let chunk = '';
    for (let k = 0; k < 5; k++) { chunk = Z85[value % 85] + chunk; value = Math.floor(value / 85); }
    out += chunk;
  }
  return out;
}

// The engine's glue script (Emscripten's loader), minified for the single
// file. Whitespace and local names only: the names Embind looks up are
// properties, which minification keeps.
function minifyScript(text) {
  return esbuild.transformSync(text, { minify: true, charset: 'utf8', legalComments: 'none', logLevel: 'silent' }).code;
}

function compactCss(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').split('\n').map((l) => l.trim()).filter(Boolean).join('\n');
}

// Text placed inside <script> or <style> must not close the element early.
function escapeInline(text) {
  return text.replace(/<\/(script|style)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

function catalogTexts(dataDir) {
  const minify = (file) => JSON.stringify(JSON.parse(read(path.join(dataDir, file))));
  return { gpus: minify('gpus.json'), models: minify('models.json') };
}

// The two catalog texts, minified, as a classic script (the site).
function catalogScript(dataDir) {
  const t = catalogTexts(dataDir);
  return `window.CALIPER_CATALOG={gpus:${JSON.stringify(t.gpus)},models:${JSON.stringify(t.models)}};\n`;
}

// The same texts joined by a line break (minified JSON has none of its
// own), gzip-compressed and Z85-encoded (the single file, where size
// matters); the page inflates them with DecompressionStream and splits them
// at the line break. Measured on the 449 KB catalog: 63.7 KB as one JSON
// object of the two texts, 62.9 KB joined (no escaped quotes to compress),
// against 455 KB for the minified texts inlined as they are and 68.0 KB for
// gzip in base64.
function compressedCatalogScript(dataDir) {
  const t = catalogTexts(dataDir);
  const gz = zlib.gzipSync(Buffer.from(t.gpus + '\n' + t.models, 'utf8'), { level: 9 });
  return `window.CALIPER_CATALOG={z85:"${z85Encode(gz)}",length:${gz.length}};\n`;
}

// The engine is one SINGLE_FILE script with the wasm inside as a base64 data
// URI. The build takes the wasm out, gzips it (a third of the size) and hands
// it back at start-up as Module.wasmBinary, which also spares the loader its
// fetch() of the data URI (refused by connect-src 'none'). An engine without
// the data URI is left as it is.
const WASM_DATA_URI = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/;
function splitEngine(engineText) {
  const match = WASM_DATA_URI.exec(engineText);
  if (!match) return { engine: engineText, wasmScript: '' };
  const wasm = Buffer.from(match[1], 'base64');
  const gz = zlib.gzipSync(wasm, { level: 9 });
  return {
    engine: engineText.replace(match[0], () => 'data:application/octet-stream;base64,'),
    wasmScript: `window.CALIPER_WASM={z85:"${z85Encode(gz)}",length:${gz.length},bytes:${wasm.length}};\n`
  };
}

// Emscripten's Embind builds functions with `new Function` unless linked with
// -sDYNAMIC_EXECUTION=0; such an engine needs 'unsafe-eval' to run at all.
function engineNeedsEval(engineText) {
  return /new Function\(/.test(engineText);
}

function csp(scriptSources, styleSources, needsEval) {
  const script = ["'self'", "'wasm-unsafe-eval'"].concat(needsEval ? ["'unsafe-eval'"] : [], scriptSources);
  return [
    "default-src 'none'",
    `script-src ${script.join(' ')}`,
    `style-src ${["'self'"].concat(styleSources).join(' ')}`,
    "img-src 'self' data: blob:",
    "connect-src 'none'",
    "font-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'"
  ].join('; ');
}

function cspMeta(policy) {
  return `<meta http-equiv="Content-Security-Policy" content="${policy}">`;
}

function sha256(text) {
  return `'sha256-${crypto.createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

// The site's scripts, in the order they run: the data and the engine first
// (they set window.CALIPER_CATALOG, CALIPER_WASM and createCaliperEngine,
// which the page's engine door reads), the page last.
function siteScripts(hasWasmScript) {
  return ['catalog.js'].concat(hasWasmScript ? ['engine-wasm.js'] : [], ['caliper-engine.js', BUNDLE]);
}

function buildSite(template, needsEval, hasWasmScript) {
  const tags = siteScripts(hasWasmScript).map((src) => `<script defer src="${src}"></script>`).join('\n');
  return template.replace('<!--CSP-->', cspMeta(csp([], [], needsEval))).replace('<!--SCRIPTS-->', tags);
}

function buildSingle(template, parts, needsEval) {
  const css = escapeInline(compactCss(parts.css));
  // Inline scripts run in document order; the page waits for DOMContentLoaded.
  const bodies = [parts.catalogGzip].concat(parts.wasmScript ? [parts.wasmScript] : [],
    [parts.engineMin, parts.page]).map(escapeInline);
  const scriptTags = bodies.map((b) => `<script>${b}</script>`).join('\n');
  const policy = csp(bodies.map(sha256), [sha256(css)], needsEval);
  // Indentation dropped from the markup (it has no <pre>, and its textareas start empty).
  return template.split('\n').map((line) => line.trim()).filter(Boolean).join('\n')
    .replace('data-build="site"', 'data-build="single"')
    .replace('<!--CSP-->', cspMeta(policy))
    .replace(/<link rel="stylesheet" href="styles.css">/, () => `<style>${css}</style>`)
    .replace('<!--SCRIPTS-->', () => scriptTags);
}

function writeFile(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function report(file) {
  const bytes = fs.readFileSync(file);
  const gz = zlib.gzipSync(bytes, { level: 9 }).length;
  const kb = (n) => (n / 1024).toFixed(1) + ' KiB';
  const flag = bytes.length > SIZE_TARGET_BYTES ? `  (over the ${SIZE_TARGET_BYTES / 1024} KiB target)` : '';
  console.log(`${path.relative(process.cwd(), file)}: ${kb(bytes.length)}, gzip ${kb(gz)}${flag}`);
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const at = (p) => path.resolve(process.cwd(), p);
  const webDir = at(args.web), outDir = at(args.out), dataDir = at(args.data);
  const split = splitEngine(read(at(args.engine)));
  const engine = split.engine;
  const needsEval = engineNeedsEval(engine);
  if (needsEval) {
    console.warn("warning: the engine builds functions with `new Function`; the pages allow 'unsafe-eval'. " +
      'Link the engine with -sDYNAMIC_EXECUTION=0 to drop it.');
  }
  const template = read(path.join(webDir, 'index.html'));
  const page = bundlePage(webDir).code;
  const parts = {
    css: read(path.join(webDir, 'styles.css')),
    catalogGzip: compressedCatalogScript(dataDir),
    engineMin: minifyScript(engine),
    wasmScript: split.wasmScript,
    page: page
  };

  fs.rmSync(outDir, { recursive: true, force: true });
  writeFile(path.join(outDir, 'index.html'), buildSite(template, needsEval, !!split.wasmScript));
  if (split.wasmScript) writeFile(path.join(outDir, 'engine-wasm.js'), split.wasmScript);
  writeFile(path.join(outDir, 'styles.css'), parts.css);
  writeFile(path.join(outDir, 'catalog.js'), catalogScript(dataDir));
  writeFile(path.join(outDir, 'caliper-engine.js'), engine);
  writeFile(path.join(outDir, BUNDLE), page);
  const single = path.join(outDir, 'caliper.html');
  writeFile(single, buildSingle(template, parts, needsEval));
  report(path.join(outDir, 'index.html'));
  report(single);
}

if (require.main === module) {
  try {
    main();
  } catch (e) {
    console.error(`build-web: ${e.message}`);
    process.exit(1);
  }
}

module.exports = { escapeInline, catalogScript, compressedCatalogScript, splitEngine, z85Encode, minifyScript, csp, sha256,
  buildSingle, buildSite, siteScripts, bundlePage, importGraph, engineNeedsEval, ENTRY, BUNDLE };
