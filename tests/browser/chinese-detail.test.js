// A Chinese reader's detail view: the rules of thumb read in Chinese with
// the engine's own figures, the formulas the page cannot translate (the
// engine's explain text) and the catalog's notes are marked as English
// originals under Chinese labels, so no English text stands unlabelled.
'use strict';
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');
const cli = require('./support/cli.js');

let zh, codes;
before(async () => {
  ({ zh } = await import('../../web/src/i18n/zh.js'));
  ({ codes } = await import('../../web/src/i18n/codes.js'));
});

function detailRequest(page) {
  return page.evaluate(() => {
    const C = window.__caliperPage, s = C.app.state, i = s.cell.indexOf('~');
    return C.requests.toEstimateRequest(s, s.cell.slice(0, i), s.cell.slice(i + 1), s.cnt, {});
  });
}

h.forEachOrigin('Chinese detail', (env) => {
  for (const [name, hash] of [['qlora', 'task=qlora&cell=qwen3-14b~rtx-2080-ti-22gb'], ['pretrain', 'task=pretrain&cell=llama-3.1-70b~h100-sxm5-80gb&cnt=64']]) {
    test(`${name}: rules of thumb in Chinese with the engine's figures; English originals labelled`, async () => {
      cli.requireCli();
      const page = await h.openPage(env.context, env.url(`lang=zh&${hash}`));
      await page.waitForSelector('#detail[open] .verdict');
      const r = cli.estimate(await detailRequest(page));
      assert.ok(r.quick_rules.length > 0);
      const shown = await page.$$eval('#detail-body section', (sections) => {
        const rules = sections.find((s) => s.querySelector('[data-code^="inference_"], [data-code^="training_"], [data-code^="lora_"], [data-code^="qlora_"]'));
        return [...rules.querySelectorAll('tbody tr')].map((tr) => [tr.querySelector('[data-code]').dataset.code, tr.querySelector('code').textContent]);
      });
      assert.deepEqual(shown.map((x) => x[0]), r.quick_rules.map((q) => q.rule));
      r.quick_rules.forEach((q, i) => {
        // The template filled with the figures the engine's formula names:
        // parameters in billions ("14.77B"), adapters in millions ("64M").
        const n = /(\d+(?:\.\d+)?)B\b/.exec(q.formula)[1], m = (/(\d+)M\b/.exec(q.formula) || [])[1];
        const template = codes.zh['rformula.' + q.rule];
        assert.ok(template, `${q.rule} has a Chinese formula`);
        assert.equal(shown[i][1], template.replace('{n}', n).replace('{m}', m), q.rule);
      });
      // The engine's explain formulas: English, marked so, under a Chinese header.
      await page.click('#detail-math > summary');
      assert.equal(await page.textContent('#detail-math thead th:nth-child(2)'), zh['detail.formulaEn']);
      const unmarked = await page.$$eval('#detail-math tbody code', (cs) => cs.filter((c) => c.lang !== 'en').length);
      assert.equal(unmarked, 0);
      // The catalog's notes: a Chinese label, the English original marked.
      const notes = await page.$$eval('.source-entry p.note', (ps) => ps.map((p) => [p.firstChild.textContent, p.querySelector('span[lang="en"]') !== null]));
      assert.ok(notes.length > 0);
      for (const [label, marked] of notes) { assert.ok(label.startsWith(zh['detail.notesEn'])); assert.ok(marked); }
      await page.evaluate(() => document.querySelectorAll('#detail details').forEach((d) => { d.open = true; }));
      await h.screenshot(page, `chinese-detail-${name}-${env.name}`, { fullPage: true });
      await page.close();
    });
  }
});
