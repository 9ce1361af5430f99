// "Show the math" in Chinese for the questions people bring (the engine's
// explain[].formula through the page's phrase table, web/src/i18n/
// formulas.js): a formula the table cannot translate whole is shown in
// English under a Chinese label (i18n.formula gives null). These requests
// are the ones readers ask most: a Mac (its power is the whole machine's),
// gpt-oss-120b on a 4090 with 96 GB of RAM under llama.cpp (the host RAM
// line), four modded 2080 Ti, an 8x H100 server and a China-market card.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { spawnSync } = require('child_process');

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'build/bin/caliper');

const REQUESTS = [
  { model: 'qwen3-30b-a3b', gpu: 'apple-m4-max-40c' },
  { model: 'llama-3.3-70b', gpu: 'M4 Max', weights: 'Q4_K_M' },
  { model: 'gpt-oss-120b', gpu: 'RTX 4090', engine: 'llama.cpp', host: { ram_gib: 96 }, parallel: { offload: 'moe-experts' } },
  { model: 'llama-3.3-70b', gpu: 'RTX 4090', engine: 'llama.cpp', weights: 'Q4_K_M', host: { ram_gib: 64 }, parallel: { offload: 'layers', gpu_layers: 40 } },
  { model: 'llama-3.3-70b', gpu: '2080 Ti 22GB', gpu_count: 4, engine: 'llama.cpp', weights: 'Q4_K_M' },
  { model: 'llama-3.1-70b', gpu: 'h100', gpu_count: 8, batch: 64 },
  { model: 'qwen3-32b', gpu: 'h20-96gb', gpu_count: 2, batch: 32 }
];

test('the formulas of common questions read whole in Chinese', async () => {
  const i18n = await import('../../web/src/i18n/i18n.js');
  i18n.setLang('zh');
  const r = spawnSync(cli, ['estimate', '--jsonl'], { input: REQUESTS.map((q) => JSON.stringify(q)).join('\n') + '\n', encoding: 'utf8' });
  assert.strictEqual(r.status, 0, r.stdout + r.stderr);
  const left = [];
  r.stdout.trim().split('\n').forEach((line, i) => {
    const result = JSON.parse(line);
    for (const e of result.explain) {
      if (i18n.formula(e.formula) === null) left.push(`${REQUESTS[i].model} on ${REQUESTS[i].gpu}: ${e.term}: ${e.formula}`);
    }
  });
  assert.deepStrictEqual(left, []);
});

// Random questions across the catalogs (a fixed seed, so a failure repeats):
// every model and GPU kind, every engine, tasks, counts, batches, formats and
// offload. Each formula the engine writes for them must read whole in
// Chinese: a phrase missing from the table shows the English.
function rng(seed) {  // mulberry32
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function ids(kind) {
  const r = spawnSync(cli, ['list', kind, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.strictEqual(r.status, 0, r.stderr);
  const list = JSON.parse(r.stdout);
  const rows = Array.isArray(list) ? list : list[kind] || Object.values(list)[0];
  return rows.map((m) => m.id).filter(Boolean);
}

function randomRequests(count, seed) {
  const next = rng(seed);
  const pick = (xs) => xs[Math.floor(next() * xs.length)];
  const models = ids('models'), gpus = ids('gpus');
  const out = [];
  for (let i = 0; i < count; i++) {
    const q = { model: pick(models), gpu: pick(gpus) };
    const task = pick(['inference', 'inference', 'inference', 'finetune', 'pretrain']);
    if (task !== 'inference') {
      q.task = task;
      if (task === 'finetune') q.method = pick(['full', 'lora', 'qlora']);
      q.engine = pick([undefined, 'transformers', 'deepspeed', 'fsdp', 'megatron', 'unsloth', 'torchtune']);
    } else {
      q.engine = pick([undefined, 'vllm', 'sglang', 'tensorrt-llm', 'llama.cpp', 'ollama', 'transformers', 'mlx']);
      q.batch = pick([1, 1, 4, 32, 64]);
      q.weights = pick([undefined, undefined, 'fp8', 'Q4_K_M', 'awq-int4', 'Q8_0']);
      if (q.engine === 'llama.cpp' && next() < 0.3) {
        q.host = { ram_gib: pick([64, 96, 256]) };
        q.parallel = { offload: pick(['layers', 'moe-experts']) };
      }
    }
    q.gpu_count = pick(['auto', 1, 2, 4, 8, 16]);
    if (q.engine === undefined) delete q.engine;
    if (q.weights === undefined) delete q.weights;
    out.push(q);
  }
  return out;
}

test('the formulas of random questions read whole in Chinese', async () => {
  const i18n = await import('../../web/src/i18n/i18n.js');
  i18n.setLang('zh');
  const requests = randomRequests(800, 20261128);
  const r = spawnSync(cli, ['estimate', '--jsonl'], { input: requests.map((q) => JSON.stringify(q)).join('\n') + '\n', encoding: 'utf8', maxBuffer: 1 << 30 });
  const left = new Map();
  let judged = 0;
  r.stdout.trim().split('\n').forEach((line, i) => {
    const result = JSON.parse(line);
    if (!result.explain) return;
    judged++;
    for (const e of result.explain) {
      if (i18n.formula(e.formula) !== null) continue;
      const words = i18n.untranslated(e.formula).join(' ');
      const key = `${e.term}: ${words}`;
      if (!left.has(key)) left.set(key, `${JSON.stringify(requests[i])} -> ${e.formula}`);
    }
  });
  assert.ok(judged > 400, `${judged} of ${requests.length} random requests gave an estimate`);
  assert.deepStrictEqual([...left.entries()].map(([k, v]) => `${k}\n    ${v}`), []);
});
