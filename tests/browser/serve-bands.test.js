// The serve view's 80% bands (docs/CONTRACT.md "Serve": ranges, slo_margin):
// each deployment's tokens/s per user, first token, time per token and cost
// per million tokens read "20.1 tok/s (18–23)" as the detail view writes a
// band, the frontier's point read-out likewise, and a deployment that meets
// the SLO by its estimate but not across its band carries the tight symbol,
// explained under the table, in English and Chinese. Every expected figure
// is the engine's own answer to the page's request, written by the page's
// format module.
'use strict';
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');

let zh, en, format;
before(async () => {
  ({ zh } = await import('../../web/src/i18n/zh.js'));
  ({ en } = await import('../../web/src/i18n/en.js'));
  format = await import('../../web/src/format/format.js');
});

const QUESTION = 'view=serve&sm=llama-3.1-8b&su=50&stps=20';
const TIGHT = '≈';

function engineAnswer(page) {
  return page.evaluate(() => {
    const C = window.__caliperPage, s = C.app.state;
    return C.engine.serve(C.requests.toServeRequest(s, s.sm || 'llama-3.1-8b'));
  });
}

function canServe(page) { return page.evaluate(() => window.__caliperPage.engine.canServe()); }

// "20.1 tok/s (18–23)": the figure, its unit, its band in brackets.
function withBand(L, value, unit, band) {
  const n = (x) => format.number(L, x);
  assert.ok(Array.isArray(band) && band[0] <= value && value <= band[1], `band ${band} brackets ${value}`);
  return `${n(value)} ${unit} (${n(band[0])}–${n(band[1])})`;
}

h.forEachOrigin('serve bands', (env) => {
  for (const [lang, dict, L] of [['en', () => en, 'en'], ['zh', () => zh, 'zh-CN']]) {
    test(`${lang}: each deployment's figures with their 80% band, the tight symbol and its legend`, async (t) => {
      const page = await h.openPage(env.context, env.url(QUESTION + '&lang=' + lang));
      if (!(await canServe(page))) { await page.close(); t.skip('this engine has no serving search yet'); return; }
      await page.waitForSelector('#serve-table');
      const answer = await engineAnswer(page);
      const d0 = answer.deployments[0];
      if (!d0.ranges || !d0.ranges['serving.tpot_ms']) { await page.close(); t.skip('this engine gives serve no bands yet'); return; }
      const words = dict();
      const rows = await page.$$eval('#serve-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => ({
        text: c.textContent, title: c.getAttribute('title') }))));
      assert.equal(rows.length, answer.deployments.length);
      answer.deployments.forEach((d, i) => {
        const s = d.serving, r = d.ranges, cells = rows[i];
        assert.equal(cells[5].text, withBand(L, s.user_tokens_per_s, words['unit.tokPerS'], r['serving.user_tokens_per_s']), `row ${i + 1}: per user`);
        assert.equal(cells[7].text, withBand(L, s.tpot_ms, words['unit.ms'], r['serving.tpot_ms']), `row ${i + 1}: per token`);
        assert.match(cells[6].text, /\(.+–.+\)$/, `row ${i + 1}: first token with its band`);
        assert.match(cells[9].text, /\(.+–.+\)$/, `row ${i + 1}: cost per million tokens with its band`);
        const tight = d.meets_slo && d.slo_margin === 'tight';
        assert.equal(cells[10].text, d.meets_slo ? (tight ? TIGHT : '✓') : '✗', `row ${i + 1}: ${d.slo_margin}`);
        assert.equal(cells[10].title, tight ? words['serve.tight'] : null);
      });
      const notes = await page.textContent('#serve-bands');
      assert.ok(notes.includes(words['detail.bandNote']), notes);
      assert.equal(notes.includes(TIGHT + ' ' + words['serve.tight']), answer.deployments.some((d) => d.meets_slo && d.slo_margin === 'tight'), notes);

      // The frontier's read-out: the first point's figures with their bands.
      const p = answer.curve[0];
      await page.locator('svg.frontier circle.pt').first().focus();
      const read = await page.textContent('#serve-readout');
      assert.ok(read.includes(withBand(L, p.user_tokens_per_s, words['unit.tokPerS'], p.ranges.user_tokens_per_s)), read);
      assert.ok(read.includes(withBand(L, p.output_tokens_per_s_per_gpu, words['unit.tokPerS'], p.ranges.output_tokens_per_s_per_gpu)), read);
      assert.ok(read.includes(withBand(L, p.tpot_ms, words['unit.ms'], p.ranges.tpot_ms)), read);
      await page.close();
    });
  }

  test('a deployment that meets the SLO only by its estimate is tight, by the engine\'s own verdict', async (t) => {
    // The search fills each replica with users until a target binds, so with
    // a per-token target the cheapest deployments sit at it: their band's
    // slow end passes it (tests/unit/serving/test_serve_ranges.cpp).
    const page = await h.openPage(env.context, env.url('view=serve&sm=llama-3.1-8b&su=50&stpot=40'));
    if (!(await canServe(page))) { await page.close(); t.skip('this engine has no serving search yet'); return; }
    await page.waitForSelector('#serve-table');
    const answer = await engineAnswer(page);
    if (!answer.deployments[0].slo_margin) { await page.close(); t.skip('this engine gives serve no SLO margin yet'); return; }
    const marks = await page.$$eval('#serve-table tbody tr', (trs) => trs.map((tr) => tr.children[10].textContent));
    assert.deepEqual(marks, answer.deployments.map((d) => (d.meets_slo ? (d.slo_margin === 'tight' ? TIGHT : '✓') : '✗')));
    assert.ok(marks.includes(TIGHT), `some deployment is tight: ${answer.deployments.map((d) => d.slo_margin).join(' ')}`);
    await page.close();
  });
});
