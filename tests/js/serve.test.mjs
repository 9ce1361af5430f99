// The serve view's pure parts (web/src/views/serve.js, frontier.js) against
// an answer of the contract's shape (docs/CONTRACT.md "Serve"). The figures
// in STUB are made up for the test: the view only places and formats them.
import test from 'node:test';
import assert from 'node:assert/strict';
import * as i18n from '../../web/src/i18n/i18n.js';
import * as serve from '../../web/src/views/serve.js';
import * as frontier from '../../web/src/views/frontier.js';

const STUB = {
  ok: true, model: { id: 'qwen2.5-72b', name: 'Qwen2.5 72B', params_b: 72.7 }, engine: 'vllm',
  slo: { ttft_s: 2, tpot_ms: null, min_user_tokens_per_s: 20 }, users: 50, meets_slo: true,
  deployments: [
    { gpu: 'h100-sxm5-80gb', gpu_name: 'H100 SXM5 80GB', gpu_count: 2, plan: { tp: 2, pp: 1, dp: 1 }, replicas: 1,
      concurrency_per_replica: 50,
      serving: { concurrency: 50, ttft_s: 0.8, tpot_ms: 31, user_tokens_per_s: 32.3, output_tokens_per_s: 1615,
        output_tokens_per_s_per_gpu: 807 },
      usd_per_month: 4380, cny_per_month: 31536, usd_per_million_output_tokens: 1.03, cny_per_million_output_tokens: 7.42,
      purchase_usd_per_million_output_tokens: 0.5, meets_slo: true, why: [] },
    { gpu: 'l40s', gpu_name: 'L40S 48GB', gpu_count: 4, plan: { tp: 4, pp: 1, dp: 1 }, replicas: 1, concurrency_per_replica: 50,
      serving: { user_tokens_per_s: 21, ttft_s: 1.9, tpot_ms: 47 }, usd_per_month: 2920, usd_per_million_output_tokens: 1.1,
      meets_slo: true, why: [] }],
  curve: [
    { concurrency: 1, user_tokens_per_s: 60, output_tokens_per_s_per_gpu: 30, ttft_s: 0.1, tpot_ms: 16 },
    { concurrency: 16, user_tokens_per_s: 45, output_tokens_per_s_per_gpu: 360, ttft_s: 0.4, tpot_ms: 22 },
    { concurrency: 64, user_tokens_per_s: 18, output_tokens_per_s_per_gpu: 576, ttft_s: 2.5, tpot_ms: 55 }],
  warnings: [], cny_per_usd: 7.2
};

function opts(lang, currency) {
  i18n.setLang(lang);
  return { t: i18n.t, locale: i18n.locale(), currency, cnyPerUsd: 7.2, pricing: 'cloud',
    units: { ms: i18n.t('unit.ms'), s: i18n.t('unit.s'), min: 'min', h: 'h', d: 'd', y: 'y' } };
}

test('one row per deployment: GPU, count, plan, per-user speed, TTFT, monthly cost and cost per million output tokens', () => {
  const rows = serve.rows(STUB, opts('en', 'usd'));
  assert.equal(rows.length, 2);
  assert.deepEqual(rows[0].cells, ['1', 'H100 SXM5 80GB', '2 GPUs', 'TP 2 × PP 1, 1 replica', '50', '32.3 tok/s', '800 ms',
    '31 ms', '$4,380', '$1.03', '✓']);
  assert.equal(rows[1].cells[2], '4 GPUs');
});

test('a split deployment reads as its prefill and decode replicas; an FP8 KV cache is named', () => {
  const split = Object.assign({}, STUB.deployments[0], { gpu_count: 12, replicas: 5, kv_cache: 'fp8',
    disaggregated: { prefill_replicas: 2, prefill_gpus_per_replica: 2, decode_replicas: 3, decode_gpus_per_replica: 4,
      kv_transfer_ms: 1.2 } });
  const answer = Object.assign({}, STUB, { deployments: [split] });
  assert.equal(serve.rows(answer, opts('en', 'usd'))[0].cells[3], 'prefill 2 × 2 GPUs + decode 3 × 4 GPUs · FP8 KV');
  assert.match(serve.rows(answer, opts('zh', 'cny'))[0].cells[3], /^预填充 2 × 2 卡 \+ 解码 3 × 4 卡/);
  const one = Object.assign({}, split, { kv_cache: null, disaggregated: Object.assign({}, split.disaggregated, { prefill_gpus_per_replica: 1 }) });
  assert.equal(serve.rows(Object.assign({}, STUB, { deployments: [one] }), opts('en', 'usd'))[0].cells[3], 'prefill 2 × 1 GPU + decode 3 × 4 GPUs');
  i18n.setLang('en');
});

test('in yuan the engine\'s cny twins are used, else its rate; Chinese labels', () => {
  const rows = serve.rows(STUB, opts('zh', 'cny'));
  assert.equal(rows[0].cells[8], '¥31,536');
  assert.equal(rows[0].cells[9], '¥7.42');
  assert.equal(rows[1].cells[8], '¥21,024', '2920 × 7.2 at the answer\'s rate');
  assert.equal(rows[0].cells[2], '2 张卡');
  assert.doesNotMatch(rows[0].cells[3], /replica/);
  i18n.setLang('en');
});

test('the answer in one sentence, and what comes closest when no deployment meets the SLO', () => {
  const o = opts('en', 'usd');
  const s = { su: 50, sr: null };
  assert.equal(serve.verdictText(STUB, s, o.t, o.locale), 'For 50 users: 2 × H100 SXM5 80GB, 32.3 tokens/s per user, $4,380 a month, $1.03 per million output tokens.');
  // In yuan: the answer's cny twins (STUB), in Chinese.
  const z = opts('zh', 'cny');
  assert.equal(serve.verdictText(STUB, s, z.t, z.locale, z), '50 个用户：2 × H100 SXM5 80GB，每用户 32.3 token/秒，每月 ¥31,536，每百万输出 token ¥7.42。');
  i18n.setLang('en');
  // Bought, not rented: the cost per million tokens of the purchase.
  assert.match(serve.verdictText(STUB, s, o.t, o.locale, Object.assign({}, o, { pricing: 'purchase' })), /\$0\.50 per million output tokens\.$/);
  const unpriced = Object.assign({}, STUB, { deployments: [Object.assign({}, STUB.deployments[0], { usd_per_month: null, cny_per_month: null })] });
  assert.equal(serve.verdictText(unpriced, s, o.t, o.locale, o), 'For 50 users: 2 × H100 SXM5 80GB, 32.3 tokens/s per user.');
  const missed = Object.assign({}, STUB, { meets_slo: false });
  assert.match(serve.verdictText(missed, s, o.t, o.locale), /^No deployment meets this SLO for 50 users; the closest: 2 × H100/);
  assert.match(serve.verdictText(Object.assign({}, STUB, { deployments: [] }), s, o.t, o.locale), /No GPU in the selection/);
});

test('the frontier: tokens/s per user across, per GPU up, the SLO as a line, each point judged by it', () => {
  assert.equal(frontier.sloUserTokensPerS({ min_user_tokens_per_s: 20, tpot_ms: 40 }), 25, 'TPOT 40 ms allows 25 tok/s: the stricter');
  assert.equal(frontier.sloUserTokensPerS({ ttft_s: 2 }), null);
  const g = frontier.geometry(STUB.curve, STUB.slo, 600, 330);
  assert.equal(g.points.length, 3);
  assert.deepEqual(g.points.map((p) => p.meets), [true, true, false], '18 tok/s per user and 2.5 s TTFT miss the SLO');
  // Faster per user is further right; more per GPU is higher up (smaller y).
  assert.ok(g.points[0].x > g.points[1].x && g.points[1].x > g.points[2].x);
  assert.ok(g.points[0].y > g.points[1].y && g.points[1].y > g.points[2].y);
  assert.ok(g.sloX > g.points[2].x && g.sloX < g.points[1].x, 'the SLO line sits between the points it separates');
  for (const p of g.points) assert.ok(p.x >= 0 && p.x <= g.W && p.y >= 0 && p.y <= g.H);
});

test('the warning that the split was not tried names the page\'s control, not the request key', () => {
  const message = 'prefill/decode disaggregation was not tried ("disaggregated": "auto" tries it): every deployment runs both phases on the same GPUs';
  for (const lang of ['en', 'zh']) {
    i18n.setLang(lang);
    const text = i18n.code('warn', 'disaggregated_not_searched', message);
    assert.doesNotMatch(text, /"disaggregated"/);
    assert.ok(text.includes(i18n.t('serve.disLabel')), `${lang}: ${text}`);
  }
  i18n.setLang('en');
});

test('Chinese serve texts name tokens per second as the rest of the page does', async () => {
  const { zh } = await import('../../web/src/i18n/zh.js');
  for (const [key, text] of Object.entries(zh)) {
    if (key.startsWith('serve.')) assert.doesNotMatch(text, /token\/s\b/, `${key}: ${text} (the page's unit is ${zh['unit.tokPerS']})`);
  }
});

test('the named GPUs always show: the first N, then each named card\'s best deployment below them, at its rank', () => {
  const d = (gpu, n) => ({ gpu, gpu_count: n });
  const ranking = [d('a', 1), d('a', 2), d('b', 1), d('a', 4), d('c', 2), d('c', 4), d('d', 1)];
  const shown = serve.shownDeployments(ranking, 2, ['a', 'c', 'e']);
  assert.deepEqual(shown.map((x) => [x.d.gpu, x.d.gpu_count, x.rank, x.named]), [['a', 1, 1, false], ['a', 2, 2, false], ['c', 2, 5, true]]);
  assert.equal(serve.shownDeployments(ranking, 10, []).length, 7, 'no names: the first N');
  assert.deepEqual(serve.rows({ deployments: [STUB.deployments[1]] }, Object.assign({ ranks: [12] }, opts('en', 'usd')))[0].cells[0], '12');
});

test('figures with their 80% band as the detail view writes it, a tight verdict marked ≈ (ranges, slo_margin)', () => {
  // A made-up band: per user 28–37 tok/s, TPOT 27–36 ms, cost $0.9–1.2 per
  // million tokens; in yuan the dollar band times the answer's rate (7.42 / 1.03).
  const d = Object.assign({}, STUB.deployments[0], { slo_margin: 'tight', ranges: {
    'serving.user_tokens_per_s': [28, 37], 'serving.tpot_ms': [27, 36], 'serving.ttft_s': [0.6, 1.2],
    usd_per_million_output_tokens: [0.9, 1.2] } });
  const row = serve.rows({ deployments: [d] }, opts('en', 'usd'))[0];
  assert.deepEqual([row.cells[5], row.cells[6], row.cells[7], row.cells[9], row.cells[10]],
    ['32.3 tok/s (28–37)', '800 ms (600 ms–1.2 s)', '31 ms (27–36)', '$1.03 ($0.90–$1.20)', '≈']);
  assert.equal(row.tight, true);
  const zhRow = serve.rows({ deployments: [d] }, opts('zh', 'cny'))[0];
  assert.equal(zhRow.cells[5], '32.3 token/秒 (28–37)');
  assert.match(zhRow.cells[9], /^¥7\.42 \(¥6\.48–¥8\.64\)$/);
  // The curve's point read-out: each figure with the point's band.
  const p = Object.assign({}, STUB.curve[0], { ranges: { user_tokens_per_s: [50, 70], tpot_ms: [14, 20] } });
  const text = frontier.pointText(p, opts('en', 'usd'));
  assert.ok(text.includes('60 tok/s (50–70)') && text.includes('16 ms (14–20)'), text);
});

test('a deployment the search moved to 4-bit weights says so on its plan, in both languages', () => {
  const int4 = Object.assign({}, STUB.deployments[1], { weights: 'awq-int4', why: ['meets_slo', 'int4_weights_quality_trade'] });
  const answer = Object.assign({}, STUB, { deployments: [int4] });
  assert.equal(serve.rows(answer, opts('en', 'usd'))[0].cells[3], 'TP 4 × PP 1, 1 replica · 4-bit AWQ weights');
  assert.match(serve.rows(answer, opts('zh', 'cny'))[0].cells[3], / · 4 位 AWQ 权重$/);
  // Its why text names the trade in both languages.
  for (const lang of ['en', 'zh']) {
    i18n.setLang(lang);
    assert.notEqual(i18n.code('why', 'int4_weights_quality_trade'), 'int4_weights_quality_trade', `${lang} text`);
  }
  i18n.setLang('en');
});
