// Runs node:test files and closes with one "N passed, N failed" line.
// usage: node scripts/run-node-tests.js DIR_OR_FILE...
'use strict';
const { run } = require('node:test');
const { spec } = require('node:test/reporters');
const fs = require('fs');
const path = require('path');

function collect(target) {
  if (fs.statSync(target).isDirectory()) {
    return fs.readdirSync(target).filter((f) => /\.test\.m?js$/.test(f)).sort().map((f) => path.join(target, f));
  }
  return [target];
}

const files = process.argv.slice(2).flatMap(collect);
let passed = 0;
let failed = 0;
const stream = run({ files, concurrency: 1, timeout: 300000 });
stream.on('test:pass', (event) => { if (event.details.type !== 'suite') passed += 1; });
stream.on('test:fail', (event) => { if (event.details.type !== 'suite') failed += 1; });
stream.compose(spec).pipe(process.stdout);
stream.on('end', () => {
  process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
  process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
});
