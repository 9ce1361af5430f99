// The detail view's "Time to first token" is the serving TTFT where the
// estimate has serving figures, the figure the serve view shows for the same
// deployment: an estimate carries two first-token times (the prefill model's
// lone prompt, `time_to_first_token_s`, and the serving step model's,
// `serving.ttft_s`, docs/CONTRACT.md), and the page must not show one in the
// detail and the other in the serve list. Expected figures are read from the
// engine.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('path');
const { spawnSync } = require('child_process');

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'build/bin/caliper');

function estimate(q) {
  const r = spawnSync(cli, ['estimate', '--jsonl'], { input: JSON.stringify(q) + '\n', encoding: 'utf8' });
  assert.strictEqual(r.status, 0, r.stdout + r.stderr);
  return JSON.parse(r.stdout);
}

test('the detail view shows the serving TTFT where the estimate has one', async () => {
  const i18n = await import('../../web/src/i18n/i18n.js');
  const format = await import('../../web/src/format/format.js');
  const detail = await import('../../web/src/views/detail.js');
  i18n.setLang('en');
  const ctx = { locale: 'en', t: i18n.t, currency: 'USD' };
  const units = detail.unitTexts(i18n.t);
  const field = detail.FIGURES.find((f) => f[1] === 'time_to_first_token_s');
  // Llama 3.3 70B Q4_K_M on four 2080 Ti 22GB under llama.cpp, one user:
  // the two first-token times differ (the prefill model counts the engine's
  // fixed per-layer time once per micro-batch, the step model half a decode step).
  const served = estimate({ model: 'llama-3.3-70b', gpu: 'rtx-2080-ti-22gb', gpu_count: 4, engine: 'llama.cpp', weights: 'Q4_K_M' });
  assert.ok(served.serving && served.serving.ttft_s > 0);
  assert.notStrictEqual(served.serving.ttft_s, served.time_to_first_token_s);
  const band = served.ranges['serving.ttft_s'];
  const secs = (x) => format.seconds('en', x, units);
  assert.strictEqual(detail.figureText(served, field, ctx), secs(served.serving.ttft_s) + (band ? format.bandText(band, secs) : ''));
  // Without serving figures (transformers) the prefill model's stands.
  const plain = estimate({ model: 'llama-3.1-8b', gpu: 'rtx-4090', engine: 'transformers' });
  assert.strictEqual(plain.serving, null);
  const plainBand = plain.ranges && plain.ranges.time_to_first_token_s;
  assert.strictEqual(detail.figureText(plain, field, ctx), secs(plain.time_to_first_token_s) + (plainBand ? format.bandText(plainBand, secs) : ''));
});
