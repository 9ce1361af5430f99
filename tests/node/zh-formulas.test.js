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
