// A Chinese reader's detail view: the rules of thumb read in Chinese with
// the engine's own figures, the engine's formulas in Chinese phrase by
// phrase, and the catalog's notes in Chinese (each entry's notes_zh), so
// no English text stands unlabelled.
'use strict';
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');
const cli = require('./support/cli.js');

let zh, codes, i18n;
// The catalog the page reads (data/), for each entry's notes in both languages.
const catalog = { gpus: require('../../data/gpus.json').gpus, models: require('../../data/models.json').models };
before(async () => {
  ({ zh } = await import('../../web/src/i18n/zh.js'));
  i18n = await import('../../web/src/i18n/i18n.js');
  i18n.setLang('zh');
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
    test(`${name}: rules of thumb and formulas in Chinese with the engine's figures; English originals labelled`, async () => {
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
      // The engine's explain formulas in Chinese, phrase by phrase, the
      // engine's English as the title; one the page cannot translate whole
      // would stay English, marked so.
      await page.click('#detail-math > summary');
      const formulas = await page.$$eval('#detail-math tbody code', (cs) => cs.map((c) => [c.textContent, c.title, c.lang]));
      assert.deepEqual(formulas.map((f) => f[2] === 'en' ? f[0] : f[1]), r.explain.map((e) => e.formula));
      for (const [text, title, lang] of formulas) if (lang !== 'en') assert.equal(text, i18n.formula(title));
      const english = formulas.filter((f) => f[2] === 'en').length;
      assert.equal(await page.textContent('#detail-math thead th:nth-child(2)'), zh[english ? 'detail.formulaEn' : 'detail.formula']);
      // The catalog's notes: each entry's Chinese text from the catalog
      // (notes_zh, the English as the title), none left in English.
      const notes = await page.$$eval('.source-entry p.note', (ps) => ps.map((p) => [p.textContent, p.title, !!p.querySelector('span[lang="en"]')]));
      const entries = [catalog.gpus.find((g) => g.id === r.gpu.id), catalog.models.find((m) => m.id === r.model.id)];
      assert.deepEqual(notes, entries.map((e) => [e.notes_zh, e.notes, false]));
      for (const [text] of notes) assert.deepEqual(i18n.untranslated(text), [], text);
      await page.evaluate(() => document.querySelectorAll('#detail details').forEach((d) => { d.open = true; }));
      await h.screenshot(page, `chinese-detail-${name}-${env.name}`, { fullPage: true });
      await page.close();
    });
  }
});
