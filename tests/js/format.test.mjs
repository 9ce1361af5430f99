// Locale formatting (web/src/format/format.js) and matrix cell texts (web/src/matrix/cells.js).
import test from 'node:test';
import assert from 'node:assert/strict';
import * as F from '../../web/src/format/format.js';
import * as cells from '../../web/src/matrix/cells.js';

test('numbers follow the locale', () => {
  assert.equal(F.number('en', 12345.6, 0), '12,346');
  assert.equal(F.number('zh-CN', 12345.6, 0), '12,346');
  assert.equal(F.number('en', NaN), '—');
  assert.equal(F.number('en', null), '—');
});

test('compact figures stay short in both languages', () => {
  assert.equal(F.compact('en', 7.44), '7.4');
  assert.equal(F.compact('en', 142.4), '142');
  assert.equal(F.compact('en', 12345), '12.3K');
  assert.equal(F.compact('zh-CN', 12345), '1.2万');
  // Below 1万 Chinese has no short form: whole numbers, as English's 8.1K
  // (a cell or an inventory line never reads 8103.4).
  assert.equal(F.compact('en', 8103.4), '8.1K');
  assert.equal(F.compact('zh-CN', 8103.4), '8,103');
  assert.equal(F.compact('zh-CN', 1442.1), '1,442');
  assert.equal(F.money('zh-CN', 1499.5, 'cny', true), '¥1,500');
  assert.equal(F.money('zh-CN', 25000, 'cny', true), '¥2.5万');
});

test('money uses the currency sign and shortens large sums', () => {
  assert.equal(F.money('en', 2.5, 'usd'), '$2.50');
  assert.equal(F.money('en', 1599, 'usd'), '$1,599');
  assert.equal(F.money('zh-CN', 11353, 'cny'), '¥11,353');
  assert.equal(F.money('en', 250000, 'usd', true), '$250K');
});

test('prices of the same size keep the same decimals', () => {
  // Side by side in a list: $0.30/h next to $0.22/h, never $0.3/h.
  assert.deepEqual([0.3, 0.22, 1.3, 12].map((v) => F.money('en', v, 'usd')), ['$0.30', '$0.22', '$1.30', '$12.00']);
  assert.equal(F.money('en', 0.042, 'usd'), '$0.042', 'two significant digits below 0.1');
  assert.equal(F.money('en', 1499, 'usd'), '$1,499');
  // The short form of the matrix cells drops the cents from 10 up.
  assert.deepEqual([0.42, 2.5, 75, 1499].map((v) => F.money('en', v, 'usd', true)), ['$0.42', '$2.50', '$75', '$1.5K']);
});

test('moneyField prefers the engine\'s CNY twin, then its exchange rate', () => {
  const r = { cost_usd: 10, cost_cny: 71.5, usd_per_hour: 2, cny_per_usd: 7.1 };
  assert.deepEqual(F.moneyField(r, 'cost_usd', 'cny'), { value: 71.5, currency: 'cny' });
  assert.deepEqual(F.moneyField(r, 'usd_per_hour', 'cny'), { value: 14.2, currency: 'cny' });
  assert.deepEqual(F.moneyField({ usd_per_hour: 2 }, 'usd_per_hour', 'cny'), { value: 2, currency: 'usd' });
  assert.deepEqual(F.moneyField(r, 'cost_usd', 'usd'), { value: 10, currency: 'usd' });
  assert.deepEqual(F.moneyField({ cost_usd: null }, 'cost_usd', 'usd'), { value: null, currency: 'usd' });
});

test('durations pick a readable unit', () => {
  const units = { min: 'min', h: 'h', d: 'days', y: 'years' };
  assert.equal(F.duration('en', 0.5, units), '30 min');
  assert.equal(F.duration('en', 5.25, units), '5.3 h');
  assert.equal(F.duration('en', 72, units), '3 days');
  assert.equal(F.duration('en', 24 * 365.25 * 3, units), '3 years');
  assert.equal(F.durationShort('en', 72), '3d');
});

test('typed numbers accept separators and suffixes', () => {
  assert.equal(F.parseInput('100M'), 1e8);
  assert.equal(F.parseInput('1T'), 1e12);
  assert.equal(F.parseInput('1亿'), 1e8);
  assert.equal(F.parseInput('1万亿'), 1e12, 'what the Chinese placeholder of pre-training shows');
  assert.equal(F.parseInput('2万'), 2e4);
  assert.ok(Number.isNaN(F.parseInput('1亿万')));
  // A field shows a token count in a form it reads back.
  assert.deepEqual([2e12, 1.5e12, 1e8, 3e11, 123456789, 2048].map(F.tokenCount), ['2T', '1.5T', '100M', '300B', '123456789', '2048']);
  for (const n of [2e12, 1.5e12, 1e8, 3e11, 123456789, 2048, 7]) assert.equal(F.parseInput(F.tokenCount(n)), n);
  assert.equal(F.parseInput('4,096'), 4096);
  assert.equal(F.parseInput(''), null);
  assert.ok(Number.isNaN(F.parseInput('lots')));
});

test('cell symbols carry the fit without colour', () => {
  assert.equal(cells.symbol({ status: 'fits', gpus_needed: 1 }), '✓');
  assert.equal(cells.symbol({ status: 'fits-multi', gpus_needed: 2, needs_nvlink: false }), '2×');
  assert.equal(cells.symbol({ status: 'fits-multi', gpus_needed: 4, needs_nvlink: true }), '4×⇌');
  assert.equal(cells.symbol({ status: 'multi-node', gpus_needed: 16 }), '16×⊞');
  assert.equal(cells.symbol({ status: 'no', gpus_needed: null }), '✗');
  // The plan's own count where the planner chose more than the fewest that fit
  // (a pipeline fits on 7, tensor parallelism runs on 8): the figures are for it.
  assert.equal(cells.symbol({ status: 'fits-multi', gpu_count: 8, gpus_needed: 7, needs_nvlink: true }), '8×⇌');
});

test('the figure shown depends on the metric and the task', () => {
  const cell = { status: 'fits', gpus_needed: 1, decode_tokens_per_s: 1520, train_hours: 30, train_tokens_per_s: 900,
    usd_per_million_tokens: 0.42, cost_usd: 75, usd_per_hour: 2.5, total_gib: 17.25 };
  const opts = { locale: 'en', currency: 'usd' };
  assert.equal(cells.figureText(cell, 'speed', false, opts), '1.5K');
  assert.equal(cells.figureText(cell, 'speed', true, opts), '30h');
  assert.equal(cells.figureText(cell, 'cost', false, opts), '$0.42');
  assert.equal(cells.figureText(cell, 'cost', true, opts), '$75');
  assert.equal(cells.figureText(cell, 'memory', false, opts), '17');
  assert.equal(cells.figureText(cell, 'gpus', false, opts), '1');
  assert.equal(cells.figureText({ status: 'fits-multi', gpu_count: 8, gpus_needed: 7 }, 'gpus', false, opts), '8');
  assert.equal(cells.figureText({ status: 'no' }, 'speed', false, opts), '');
  assert.equal(cells.figureText({ status: 'fits', decode_tokens_per_s: null }, 'speed', false, opts), '–');
  // A speech model's cell: no tokens/s, its own figure (seconds of audio per second).
  assert.equal(cells.figureText({ status: 'fits', decode_tokens_per_s: null, workload_figure: 107.2 }, 'speed', false, opts), '107');
});

test('sort values skip cells that do not fit', () => {
  assert.equal(cells.sortValue({ status: 'no', decode_tokens_per_s: 5 }, 'speed', false), null);
  assert.equal(cells.sortValue({ status: 'fits', decode_tokens_per_s: 5 }, 'speed', false), 5);
  assert.ok(cells.higherIsBetter('speed', false));
  assert.ok(!cells.higherIsBetter('cost', false));
  assert.ok(cells.higherIsBetter('users', false));
  assert.equal(cells.sortValue({ status: 'fits', users_at_slo: 193 }, 'users', false), 193);
  assert.equal(cells.figureText({ status: 'fits', users_at_slo: 193 }, 'users', false, { locale: 'en', currency: 'usd', cnyPerUsd: 7 }), '193');
  // A figure the engine found with FP8 weights/KV says so.
  assert.equal(cells.figureText({ status: 'fits', users_at_slo: 193, users_at_slo_fp8: true }, 'users', false, { locale: 'en', currency: 'usd', cnyPerUsd: 7 }), '193 FP8');
  // Its band where fewer users meet the SLO at the slow end of the serving
  // bands (users_at_slo_low); none where as many do.
  assert.equal(cells.figureText({ status: 'fits', users_at_slo: 48, users_at_slo_low: 37 }, 'users', false, { locale: 'en', currency: 'usd', cnyPerUsd: 7 }), '37–48');
  assert.equal(cells.figureText({ status: 'fits', users_at_slo: 48, users_at_slo_low: 48 }, 'users', false, { locale: 'en', currency: 'usd', cnyPerUsd: 7 }), '48');
  assert.ok(cells.sloTight({ status: 'fits', users_at_slo: 48, users_at_slo_low: 37 }));
  // Beside a band the FP8 mark follows the symbol (the cell has no room for both on one line).
  const fp8Band = { status: 'fits', users_at_slo: 48, users_at_slo_low: 37, users_at_slo_fp8: true };
  assert.equal(cells.figureText(fp8Band, 'users', false, { locale: 'en', currency: 'usd', cnyPerUsd: 7 }), '37–48');
  assert.equal(cells.symbol(fp8Band, 'users', false), '✓ FP8');
  assert.equal(cells.symbol(fp8Band, 'speed', false), '✓');
  assert.ok(!cells.sloTight({ status: 'fits', users_at_slo: 48, users_at_slo_low: null }));
  assert.equal(cells.figureText({ status: 'fits', gpus_needed: 2 }, 'gpus', false, { locale: 'en', currency: 'usd', cnyPerUsd: 7 }), '2');
});
