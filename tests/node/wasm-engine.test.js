// The WASM module under Node: same JSON as the native CLI for the same
// request, errors as values (never a throw), and no heap growth over many calls.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'build/bin/caliper');
const checkedEngine = path.join(root, 'build-wasm/wasm/caliper-engine-checked.js');
const releaseEngine = path.join(root, 'build-wasm/wasm/caliper-engine.js');
const gpusText = fs.readFileSync(path.join(root, 'data/gpus.json'), 'utf8');
const modelsText = fs.readFileSync(path.join(root, 'data/models.json'), 'utf8');
const cases = fs.readFileSync(path.join(root, 'tests/cases/parity.jsonl'), 'utf8').split('\n').filter(Boolean);

async function loadEngine(file) {
  const engine = await require(file)();
  const loaded = JSON.parse(engine.loadCatalog(gpusText, modelsText));
  assert.strictEqual(loaded.ok, true, JSON.stringify(loaded));
  return engine;
}

function native(args, input) {
  try {
    return execFileSync(cli, args, { input, encoding: 'utf8' });
  } catch (error) {
    if (error.status === 2) return error.stdout;  // rejected input still prints its ok:false line
    throw error;
  }
}

test('every parity case gives byte-identical JSON from native and WASM', async () => {
  const engine = await loadEngine(checkedEngine);
  const nativeLines = native(['estimate', '--jsonl'], cases.join('\n') + '\n').trim().split('\n');
  assert.strictEqual(nativeLines.length, cases.length);
  cases.forEach((request, i) => {
    assert.strictEqual(engine.estimate(request), nativeLines[i], `case ${i + 1}: ${request}`);
  });
});

test('listings and the matrix match the native CLI', async () => {
  const engine = await loadEngine(checkedEngine);
  assert.strictEqual(engine.listGpus() + '\n', native(['list', 'gpus', '--json'], ''));
  assert.strictEqual(engine.listModels() + '\n', native(['list', 'models', '--json'], ''));
  const request = JSON.stringify({ model: ['llama-3.1-8b', 'qwen2.5-72b'], gpu: ['rtx-4090', 'h100-sxm5-80gb'] });
  assert.strictEqual(engine.matrix(request) + '\n', native(['matrix'], request));
});

test('bad input comes back as ok:false with code, message and path, never a throw', async () => {
  const engine = await loadEngine(checkedEngine);
  const bad = ['', 'not json', '[]', '{"model":42,"gpu":"h100"}', '{"gpu":"h100"}', '{'.repeat(100000),
    JSON.stringify({ model: 'llama-3.1-8b', gpu: 'h100', batch: 0 })];
  for (const request of bad) {
    const result = JSON.parse(engine.estimate(request));
    assert.strictEqual(result.ok, false, request.slice(0, 40));
    assert.ok(result.error.code && result.error.message, JSON.stringify(result));
    assert.strictEqual(typeof result.error.path, 'string');
  }
  const missing = JSON.parse(engine.estimate('{"gpu":"h100"}'));
  assert.strictEqual(missing.error.path, '/model');
});

test('a bad catalog is refused with its JSON pointer and the loaded one stays', async () => {
  const engine = await loadEngine(checkedEngine);
  const gpus = JSON.parse(gpusText);
  gpus.gpus[3].bandwidth_gbps = -3;
  const refused = JSON.parse(engine.loadCatalog(JSON.stringify(gpus), modelsText));
  assert.strictEqual(refused.ok, false);
  assert.strictEqual(refused.error.path, '/gpus/3/bandwidth_gbps');
  const still = JSON.parse(engine.estimate(cases[0]));
  assert.strictEqual(still.ok, true);
});

test('the WASM heap does not grow over 100,000 estimate calls', async () => {
  const engine = await loadEngine(releaseEngine);
  const request = cases[0];
  for (let i = 0; i < 1000; i += 1) engine.estimate(request);  // warm up the allocator
  const before = engine.HEAP8.length;
  for (let i = 0; i < 100000; i += 1) engine.estimate(i % 2 ? request : '{"model":"nope","gpu":"h100"}');
  assert.strictEqual(engine.HEAP8.length, before);
});
