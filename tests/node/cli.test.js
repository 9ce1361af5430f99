// The command line as scripts use it (docs/CONTRACT.md "Command line").
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'build/bin/caliper');
const run = (args, input = '') => spawnSync(cli, args, { input, encoding: 'utf8', maxBuffer: 64 << 20 });

test('--version names the version and the catalog version', () => {
  const r = run(['--version']);
  assert.strictEqual(r.status, 0);
  assert.match(r.stdout, /^caliper \d+\.\d+\.\d+ \(catalog \S+\)/);
});

test('estimate exits 0 for a good scenario and 2 with an ok:false line for a bad one', () => {
  const good = run(['estimate'], '{"model":"llama-3.1-8b","gpu":"RTX 4090"}');
  assert.strictEqual(good.status, 0);
  assert.strictEqual(JSON.parse(good.stdout).ok, true);
  const bad = run(['estimate'], '{"model":"llama-3.1-8b","gpu":"H1000"}');
  assert.strictEqual(bad.status, 2);
  const error = JSON.parse(bad.stdout);
  assert.strictEqual(error.ok, false);
  assert.strictEqual(error.error.code, 'unknown_gpu');
  assert.strictEqual(error.error.path, '/gpu');
});

test('estimate --jsonl answers every line in order and keeps going after a bad one', () => {
  const lines = [
    '{"model":"llama-3.1-8b","gpu":"h100"}',
    'not json',
    '{"model":"qwen2.5-7b","gpu":"4090","task":"finetune","method":"qlora"}',
  ];
  const r = run(['estimate', '--jsonl'], lines.join('\n') + '\n');
  assert.strictEqual(r.status, 2);
  const out = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepStrictEqual(out.map((o) => o.ok), [true, false, true]);
  assert.strictEqual(out[0].model.id, 'llama-3.1-8b');
  assert.strictEqual(out[2].model.id, 'qwen2.5-7b');
});

test('list gpus and list models carry the contract keys', () => {
  const gpus = JSON.parse(run(['list', 'gpus', '--json']).stdout);
  for (const key of ['id', 'name', 'aliases', 'vendor', 'memory_gib', 'memory_gb', 'bandwidth_gbps', 'bf16_tflops',
    'fp16_tflops', 'fp8_tflops', 'int8_tops', 'fp32_tflops', 'nvlink_gbps', 'tdp_w', 'price_usd',
    'cloud_usd_per_hour', 'sources']) {
    assert.ok(gpus.every((g) => key in g), `gpu key ${key}`);
  }
  const models = JSON.parse(run(['list', 'models', '--json']).stdout);
  for (const key of ['id', 'name', 'hf_id', 'aliases', 'params_b', 'active_params_b', 'layers', 'hidden_size',
    'intermediate_size', 'heads', 'kv_heads', 'head_dim', 'vocab_size', 'max_context', 'kv_bytes_per_token',
    'sources']) {
    assert.ok(models.every((m) => key in m), `model key ${key}`);
  }
});

test('matrix answers cells[model][gpu] with the contract keys', () => {
  const request = { model: ['llama-3.1-8b', 'llama-3.1-70b'], gpu: ['rtx-4090', 'h100-sxm5-80gb', 'a100-sxm4-80gb'] };
  const r = run(['matrix'], JSON.stringify(request));
  assert.strictEqual(r.status, 0);
  const m = JSON.parse(r.stdout);
  assert.strictEqual(m.cells.length, 2);
  assert.ok(m.cells.every((row) => row.length === 3));
  for (const key of ['gpus_needed', 'fits_one', 'total_gib', 'decode_tokens_per_s', 'train_tokens_per_s',
    'usd_per_hour', 'status']) {
    assert.ok(key in m.cells[0][0], key);
  }
  assert.ok(['fits', 'fits-multi', 'multi-node', 'no'].includes(m.cells[1][0].status));
});

test('matrix with an slo: every fitting cell says the users one replica serves within it', () => {
  const request = { model: ['llama-3.1-8b'], gpu: ['rtx-4090', 'h100-sxm5-80gb'], slo: { ttft_s: 2, min_user_tokens_per_s: 20 } };
  const r = run(['matrix'], JSON.stringify(request));
  assert.strictEqual(r.status, 0);
  const m = JSON.parse(r.stdout);
  assert.deepStrictEqual(m.slo, { ttft_s: 2, tpot_ms: null, min_user_tokens_per_s: 20 });
  for (const cell of m.cells[0]) assert.ok(Number.isInteger(cell.users_at_slo) && cell.users_at_slo >= 1);
  // The H100 serves more users than the 4090 at the same target.
  assert.ok(m.cells[0][1].users_at_slo > m.cells[0][0].users_at_slo);
  const bad = run(['matrix'], JSON.stringify({ model: 'llama-3.1-8b', gpu: 'h100', slo: {} }));
  assert.strictEqual(bad.status, 2);
  assert.strictEqual(JSON.parse(bad.stdout).error.path, '/slo');
});

test('cells_layout "columns" gives every cell field as a row-major array, equal to the cell objects', () => {
  for (const workload of [{}, { task: 'finetune', method: 'qlora', train_tokens: 1e8 }, { engine: 'llama.cpp', weights: 'Q4_K_M' }]) {
    const request = Object.assign({ model: 'all', gpu: 'all', max_gpus: 4 }, workload);
    const rows = JSON.parse(run(['matrix'], JSON.stringify(request)).stdout);
    const r = run(['matrix'], JSON.stringify(Object.assign({ cells_layout: 'columns' }, request)));
    assert.strictEqual(r.status, 0);
    const cols = JSON.parse(r.stdout);
    assert.ok(!('cells' in cols));
    assert.deepStrictEqual(cols.models, rows.models);
    assert.deepStrictEqual(cols.gpus, rows.gpus);
    const n = rows.models.length * rows.gpus.length;
    assert.ok(n > 1000);
    assert.deepStrictEqual(Object.keys(cols.cell_columns).sort(), Object.keys(rows.cells[0][0]).sort());
    for (const [key, values] of Object.entries(cols.cell_columns)) {
      assert.strictEqual(values.length, n, key);
      values.forEach((v, i) => {
        const cell = rows.cells[Math.floor(i / rows.gpus.length)][i % rows.gpus.length];
        assert.strictEqual(v, cell[key], `${key} at ${i}`);
      });
    }
  }
  const bad = run(['matrix'], JSON.stringify({ model: 'all', gpu: 'all', cells_layout: 'grid' }));
  assert.strictEqual(bad.status, 2);
  assert.strictEqual(JSON.parse(bad.stdout).error.path, '/cells_layout');
});

test('--catalog reads another folder and refuses bad data with its pointer', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'caliper-catalog-'));
  const gpus = JSON.parse(fs.readFileSync(path.join(root, 'data/gpus.json'), 'utf8'));
  fs.copyFileSync(path.join(root, 'data/models.json'), path.join(dir, 'models.json'));
  fs.writeFileSync(path.join(dir, 'gpus.json'), JSON.stringify(gpus));
  assert.strictEqual(run(['--catalog', dir, '--version']).status, 0);
  gpus.gpus[12].bandwidth_gbps = -3;
  fs.writeFileSync(path.join(dir, 'gpus.json'), JSON.stringify(gpus));
  const r = run(['--catalog', dir, 'list', 'gpus', '--json']);
  assert.strictEqual(r.status, 2);
  assert.match(r.stderr, /\/gpus\/12\/bandwidth_gbps: expected a positive number, got -3/);
});

test('an unknown command prints the help and exits 2', () => {
  const r = run(['frobnicate']);
  assert.strictEqual(r.status, 2);
  assert.match(r.stderr, /usage: caliper/);
});
