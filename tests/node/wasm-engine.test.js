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
    return execFileSync(cli, args, { input, encoding: 'utf8', maxBuffer: 256 << 20 });
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
  const columns = JSON.stringify({ model: 'all', gpu: 'all', task: 'finetune', method: 'lora', cells_layout: 'columns' });
  assert.strictEqual(engine.matrix(columns) + '\n', native(['matrix'], columns));
  // The users-at-SLO mode: the same request, the same users per cell.
  const slo = JSON.stringify({ model: ['llama-3.1-8b', 'qwen2.5-72b'], gpu: ['rtx-4090', 'h100-sxm5-80gb'],
    slo: { ttft_s: 2, min_user_tokens_per_s: 20 } });
  assert.strictEqual(engine.matrix(slo) + '\n', native(['matrix'], slo));
});

test('describe answers what the native CLI answers, through both doors', async () => {
  const engine = await loadEngine(checkedEngine);
  const text = engine.describe();
  assert.strictEqual(text + '\n', native(['describe'], ''));
  assert.strictEqual(new TextDecoder().decode(engine.callText('describe')), text);
  const described = JSON.parse(text);
  assert.ok(described.enums.weights.includes('Q4_K_M') && described.presets.length > 0);
});

// The byte door (wasm/API.md): texts in and out as UTF-8 bytes in the
// module's memory, as the page calls it.
function callBytes(engine, name, texts) {
  texts.forEach((text, slot) => {
    const bytes = new TextEncoder().encode(text);
    const buffer = engine.textInput(slot, bytes.length);
    assert.ok(buffer instanceof Uint8Array && buffer.length === bytes.length, `input ${slot}: a buffer of ${bytes.length} bytes`);
    buffer.set(bytes);
  });
  return new TextDecoder().decode(engine.callText(name));
}

test('the byte door answers exactly what the string functions answer', async () => {
  const engine = await require(checkedEngine)();
  assert.strictEqual(JSON.parse(callBytes(engine, 'matrix', ['{}'])).error.code, 'no_catalog', 'no catalog yet');
  assert.strictEqual(callBytes(engine, 'loadCatalog', [gpusText, modelsText]), engine.loadCatalog(gpusText, modelsText));
  const matrix = JSON.stringify({ model: 'all', gpu: 'all', cells_layout: 'columns' });
  assert.strictEqual(callBytes(engine, 'matrix', [matrix]), engine.matrix(matrix));
  // Text beyond ASCII both ways: a Chinese model name in, zh caveats out.
  const named = JSON.stringify({ model: { params_b: 7, name: '通义千问 自定义' }, gpu: 'rtx-4090' });
  assert.strictEqual(callBytes(engine, 'estimate', [named]), engine.estimate(named));
  assert.ok(callBytes(engine, 'estimate', [named]).includes('通义千问 自定义'));
  assert.strictEqual(callBytes(engine, 'caveats', []), engine.caveats());
  for (const name of ['recommend', 'inventory', 'limits']) {
    const request = name === 'inventory' ? JSON.stringify({ inventory: [{ gpu: 'rtx-4090', count: 2 }] })
      : JSON.stringify({ model: 'llama-3.1-8b', gpu: 'rtx-4090' });
    assert.strictEqual(callBytes(engine, name, [request]), engine[name](request), name);
  }
  assert.strictEqual(callBytes(engine, 'listModels', []), engine.listModels());
  // The matrix as numbers: the figures of the column layout, field by field.
  const lora = { model: 'all', gpu: 'all', task: 'finetune', method: 'lora' };
  const columns = JSON.parse(engine.matrix(JSON.stringify({ ...lora, cells_layout: 'columns' }))).cell_columns;
  const described = JSON.parse(callBytes(engine, 'matrix', [JSON.stringify({ ...lora, cells_layout: 'values' })])).cell_values;
  const values = new Float64Array(engine.cellValues());
  assert.strictEqual(values.length, described.fields.length * described.cells);
  described.fields.forEach((field, f) => {
    const read = Array.from(values.subarray(f * described.cells, (f + 1) * described.cells), (v) => (Number.isNaN(v) ? null
      : field === 'status' || field === 'strategy' ? described[field][v] : field === 'fits_one' || field === 'needs_nvlink' || field === 'tight' || field === 'users_at_slo_fp8' ? v === 1 : v));
    assert.deepStrictEqual(read, columns[field], field);
  });
  // cells_only: the same numbers without the headers, their sizes instead.
  const full = JSON.parse(callBytes(engine, 'matrix', [JSON.stringify({ ...lora, cells_layout: 'columns' })]));
  const bare = JSON.parse(callBytes(engine, 'matrix', [JSON.stringify({ ...lora, cells_layout: 'values', cells_only: true })]));
  assert.deepStrictEqual(Array.from(engine.cellValues()), Array.from(values), 'the same cells');
  assert.strictEqual(bare.models, undefined);
  assert.strictEqual(bare.gpus, undefined);
  assert.strictEqual(bare.model_count, full.models.length);
  assert.strictEqual(bare.gpu_count, full.gpus.length);
  assert.strictEqual(JSON.parse(engine.matrix(JSON.stringify({ ...lora, cells_only: true }))).cells.length, full.models.length,
    'cells_only keeps the cells in the other layouts too');
  callBytes(engine, 'caveats', []);
  assert.strictEqual(engine.cellValues().length, 0, 'numbers only for the call that asked for them');
  assert.strictEqual(JSON.parse(engine.matrix(JSON.stringify({ ...lora, cells_layout: 'values' }))).error.path, '/cells_layout',
    'the string door has nowhere to put numbers');
  // Refused, never thrown: an unknown function, a slot or size out of range.
  assert.strictEqual(JSON.parse(callBytes(engine, 'nope', [])).error.code, 'unknown_function');
  assert.strictEqual(engine.textInput(2, 10), null);
  assert.strictEqual(engine.textInput(0, -1), null);
  assert.strictEqual(engine.textInput(0, 1e12), null);
  // Invalid UTF-8 is the engine's to reject, as text.
  const buffer = engine.textInput(0, 3);
  buffer.set([0xff, 0xfe, 0x7b]);
  assert.strictEqual(JSON.parse(new TextDecoder().decode(engine.callText('estimate'))).ok, false);
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

// Generated scenarios (seeded, so a failure replays): catalog ids with the
// option values docs/CONTRACT.md lists, and now and then a value outside them.
function generatedRequests(count, seed) {
  let state = seed >>> 0;
  const random = () => {  // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (list) => list[Math.floor(random() * list.length)];
  const gpus = JSON.parse(gpusText).gpus.map((g) => g.id);
  const models = JSON.parse(modelsText).models.map((m) => m.id);
  const requests = [];
  for (let i = 0; i < count; i += 1) {
    const task = pick(['inference', 'inference', 'finetune', 'pretrain']);
    const r = { model: pick(models), gpu: pick(gpus), task, gpu_count: pick([1, 2, 4, 8, 'auto']) };
    if (task === 'inference') {
      r.engine = pick(['vllm', 'sglang', 'tensorrt-llm', 'transformers', 'llama.cpp']);
      r.weights = pick(r.engine === 'llama.cpp' ? ['Q8_0', 'Q6_K', 'Q4_K_M', 'Q4_0', 'Q2_K'] : ['bf16', 'fp8', 'int8', 'awq-int4']);
      r.batch = pick([1, 4, 32]);
      r.prompt_tokens = pick([128, 2048, 32768]);
      r.output_tokens = pick([0, 512, 4096]);
    } else {
      r.engine = pick(task === 'finetune' ? ['transformers', 'deepspeed', 'fsdp'] : ['megatron', 'deepspeed', 'fsdp']);
      if (task === 'finetune') r.method = pick(['full', 'lora', 'qlora']);
      r.seq_len = pick([512, 2048, 8192]);
      r.batch = pick([1, 2, 8]);
      r.train_tokens = pick([null, 1e9, 1e12]);
    }
    if (random() < 0.1) r[pick(['batch', 'gpu_count', 'weights', 'engine'])] = pick([0, -1, 'x', 1e18, null]);
    requests.push(JSON.stringify(r));
  }
  return requests;
}

test('generated scenarios give byte-identical JSON from native and WASM', async () => {
  const engine = await loadEngine(checkedEngine);
  const requests = generatedRequests(300, 20240601);
  const nativeLines = native(['estimate', '--jsonl'], requests.join('\n') + '\n').trim().split('\n');
  assert.strictEqual(nativeLines.length, requests.length);
  let accepted = 0;
  requests.forEach((request, i) => {
    const answer = engine.estimate(request);
    assert.strictEqual(answer, nativeLines[i], request);
    if (JSON.parse(answer).ok) accepted += 1;
  });
  assert.ok(accepted > requests.length / 2, `only ${accepted} of ${requests.length} generated requests accepted`);
});

test('generated scenarios never throw out of any WASM entry point', async () => {
  const engine = await loadEngine(checkedEngine);
  const requests = generatedRequests(40, 7);
  for (const request of requests) {
    const small = JSON.stringify({ ...JSON.parse(request), max_gpus: 8, top: 3 });
    const { gpu, ...workload } = JSON.parse(request);
    const inventory = JSON.stringify({ ...workload, inventory: [{ gpu, count: 2 }] });
    for (const [name, text] of [['estimate', request], ['limits', request], ['recommend', small], ['inventory', inventory]]) {
      const answer = JSON.parse(engine[name](text));
      assert.strictEqual(typeof answer.ok, 'boolean', `${name}: ${text}`);
      if (!answer.ok) assert.ok(answer.error.code && typeof answer.error.path === 'string', `${name}: ${text}`);
    }
  }
});

test('the WASM heap does not grow over 100,000 estimate calls', async () => {
  const engine = await loadEngine(releaseEngine);
  const request = cases[0];
  for (let i = 0; i < 1000; i += 1) engine.estimate(request);  // warm up the allocator
  const before = engine.HEAP8.length;
  for (let i = 0; i < 100000; i += 1) engine.estimate(i % 2 ? request : '{"model":"nope","gpu":"h100"}');
  assert.strictEqual(engine.HEAP8.length, before);
});
