// Every visible string in the reader's language: the views a reader opens
// (matrix, the detail of an inference, LoRA, pre-training and serving cell
// with its formulas and catalog notes open, recommend, inventory, serve, an
// error), in Chinese and in English, on a desktop and on a 390 px phone.
// Chinese: no English word is left, apart from names and symbols (the
// page's own allow-list, i18n.untranslated: quantity names such as bf16 or
// lm_head, engine names such as vllm, units such as ms) and the catalog's
// own model and GPU names, and a gloss (an English term in brackets after
// its Chinese: 损失缩放（loss scaling）); citations (the catalog's sources, <cite>) are
// quoted as written. English: no Chinese, apart from the catalog's names.
'use strict';
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');
const cli = require('./support/cli.js');

const VIEWS = [
  { name: 'matrix', hash: '', ready: '#matrix tbody tr[data-model-id] td' },
  { name: 'detail-inference', hash: 'cell=llama-3.1-8b~h100-sxm5-80gb', ready: '#detail[open] .verdict', detail: true },
  { name: 'detail-lora', hash: 'task=lora&cell=llama-3.1-8b~h100-sxm5-80gb', ready: '#detail[open] .verdict', detail: true },
  { name: 'detail-pretrain', hash: 'task=pretrain&cell=llama-3.1-70b~h100-sxm5-80gb&cnt=64', ready: '#detail[open] .verdict', detail: true },
  { name: 'detail-serving', hash: 'eng=vllm&b=32&cell=llama-3.1-8b~rtx-4090', ready: '#detail[open] .verdict', detail: true },
  { name: 'recommend', hash: 'view=recommend&rm=llama-3.1-8b', ready: '#rec-results .rec-item' },
  { name: 'inventory', hash: 'view=inventory&inv=2*H100', ready: '#inv-results table' },
  { name: 'serve', hash: 'view=serve&sm=llama-3.1-8b', ready: '#serve-table' },
  { name: 'error', hash: 'view=inventory&inv=2*H1000', ready: '#status.error' }
];
const DESKTOP = { viewport: { width: 1400, height: 900 } };
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

let i18n, nameWords, nameCjk;
before(async () => {
  i18n = await import('../../web/src/i18n/i18n.js');
  cli.requireCli();
  // The catalog's own names (the engine's lists): "Whisper small", "FLUX.1 [dev]", "MetaX C550 (曦云C550)".
  const names = [...cli.listModels(), ...cli.listGpus()].flatMap((e) => [e.name, e.family, ...(e.aliases || [])]).filter(Boolean).join(' ');
  nameWords = new Set(names.match(/[A-Za-z][A-Za-z'\u2019-]*/g).map((w) => w.replace(/[-'\u2019]+$/, '')));
  nameCjk = new Set(names.match(/[\u3000-\u9fff\uff00-\uffef]+/g) || []);
});

// Visible text of the view, citations apart, each text node with its parent's tag.
function visibleTexts(page) {
  return page.evaluate(() => {
    const out = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!n.textContent.trim() || !el || el.closest('script, style, cite') || !el.checkVisibility()) continue;
      out.push({ tag: el.tagName, text: n.textContent, english: !!el.closest('[lang="en"]') });
    }
    return out;
  });
}

async function openView(context, env, lang, view) {
  const page = await h.openPage(context, env.url(`lang=${lang}${view.hash ? '&' + view.hash : ''}`));
  await page.waitForSelector(view.ready, { timeout: h.WAIT_MS });
  if (view.detail) await page.evaluate(() => document.querySelectorAll('#detail details').forEach((d) => { d.open = true; }));
  return page;
}

h.forEachOrigin('every visible string', (env) => {
  for (const [device, options] of [['desktop', DESKTOP], ['phone', PHONE]]) {
    test(`Chinese, ${device}: no English left in any view`, async () => {
      const context = await env.newContext({ ...options, locale: 'zh-CN' });
      i18n.setLang('zh');
      for (const view of VIEWS) {
        const page = await openView(context, env, 'zh', view);
        const texts = await visibleTexts(page);
        // A gloss, the English term in brackets after its Chinese (损失缩放（loss scaling）), counts as a name.
        const left = texts.flatMap((t) => i18n.untranslated(t.text.replace(/([\u4e00-\u9fff])（[A-Za-z][A-Za-z -]*）/g, '$1'))
          .filter((w) => !nameWords.has(w)).map((w) => `${t.tag}: ${w} in “${t.text.slice(0, 120)}”`));
        assert.deepEqual(left, [], `${view.name}: English words in the Chinese page`);
        // Nothing stands as an English original under a Chinese label.
        assert.deepEqual(texts.filter((t) => t.english).map((t) => t.text.slice(0, 80)), [], `${view.name}: text marked English`);
        if (view.detail) {
          // The formulas are the engine's own, phrase by phrase (its English as the title).
          const shown = await page.$$eval('#detail-math tbody tr', (rows) => rows.map((r) => [r.querySelector('code').textContent, r.querySelector('code').title]));
          assert.ok(shown.length > 0, `${view.name}: the math is shown`);
          for (const [text, title] of shown) assert.equal(text, i18n.formula(title), `${view.name}: ${title}`);
          assert.equal(await page.textContent('#detail-math thead th:nth-child(2)'), i18n.t('detail.formula'));
        }
        if (device === 'phone' || view.detail) await h.screenshot(page, `every-string-zh-${view.name}-${device}-${env.name}`, { fullPage: view.detail });
        await page.close();
      }
      await context.close();
    });

    test(`English, ${device}: no Chinese in any view, the formulas as the engine wrote them`, async () => {
      const context = await env.newContext({ ...options, locale: 'en-US' });
      for (const view of VIEWS) {
        const page = await openView(context, env, 'en', view);
        const texts = await visibleTexts(page);
        const cjk = texts.flatMap((t) => (t.text.match(/[\u3000-\u9fff\uff00-\uffef]+/g) || []).filter((w) => !nameCjk.has(w)).map((w) => `${t.tag}: ${w}`));
        assert.deepEqual(cjk, [], `${view.name}: Chinese in the English page`);
        if (view.detail) {
          const request = await page.evaluate(() => {
            const C = window.__caliperPage, s = C.app.state, i = s.cell.indexOf('~');
            return C.requests.toEstimateRequest(s, s.cell.slice(0, i), s.cell.slice(i + 1), s.cnt, {});
          });
          const r = cli.estimate(request);
          assert.deepEqual(await page.$$eval('#detail-math tbody code', (cs) => cs.map((c) => c.textContent)), r.explain.map((e) => e.formula), view.name);
        }
        if (device === 'phone' && view.detail) await h.screenshot(page, `every-string-en-${view.name}-${device}-${env.name}`, { fullPage: true });
        await page.close();
      }
      await context.close();
    });
  }
});
