// The native command line (build/bin/caliper), the reference the page's
// figures are compared with: the page runs the same engine compiled to wasm,
// and docs/CONTRACT.md promises the same result through every door.
'use strict';
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { ROOT } = require('./harness.js');

const CLI = path.join(ROOT, 'build/bin/caliper');
// The page is built from data/ (scripts/build-web.js); the CLI reads the same files.
const CATALOG_ARGS = ['--catalog', path.join(ROOT, 'data')];

function requireCli() {
  assert.ok(fs.existsSync(CLI), 'build/bin/caliper is missing: build it first (scripts/build.sh)');
}

function run(args, input) {
  const r = spawnSync(CLI, CATALOG_ARGS.concat(args), { input: input == null ? '' : input, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return { status: r.status, out: r.stdout ? JSON.parse(r.stdout) : null, stderr: r.stderr };
}

// A command whose answer must be ok:true.
function ask(command, request) {
  const r = run([command], JSON.stringify(request));
  assert.equal(r.status, 0, `caliper ${command} failed: ${r.stderr} ${JSON.stringify(r.out)}`);
  return r.out;
}

const listModels = () => run(['list', 'models', '--json']).out;
const listGpus = () => run(['list', 'gpus', '--json']).out;
const matrix = (request) => ask('matrix', request);
const estimate = (request) => ask('estimate', request);
const inventory = (request) => ask('inventory', request);
const recommend = (request) => ask('recommend', request);
const describe = () => run(['describe']).out;
// An estimate that may be rejected: {status, out}.
const tryEstimate = (request) => run(['estimate'], JSON.stringify(request));

// The cells of the same matrix request restricted to some models and GPUs
// (the page itself loads its matrix in such pieces), keyed "model|gpu".
function matrixCells(request, modelIds, gpuIds) {
  const out = matrix({ ...request, model: modelIds, gpu: gpuIds });
  const cells = new Map();
  out.models.forEach((m, i) => out.gpus.forEach((g, j) => cells.set(`${m.id}|${g.id}`, out.cells[i][j])));
  return cells;
}

module.exports = { CLI, requireCli, listModels, listGpus, matrix, estimate, inventory, recommend, describe, tryEstimate, matrixCells };
