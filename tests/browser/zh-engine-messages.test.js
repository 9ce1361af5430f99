// The engine's own messages in a Chinese page: warnings, errors, the link's
// refused keys and the serving verdicts come from the engine in English, and
// the page shows each in Chinese (web/src/i18n/codes.js), keeping the
// English as the element's title. Walks the views where the engine warns
// or refuses (a context past the model's, llama.cpp/Ollama offload, a GPU
// without a tensor rate, multi-node pre-training, an SLO nothing meets,
// purchase pricing, an unknown GPU, a link with values the page cannot read,
// the users-at-SLO matrix) and fails on an engine message shown as the
// engine wrote it, or on English words left around it.
'use strict';
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');

const VIEWS = [
  { name: 'context-past-model', hash: 'ctx=1000000&cell=llama-3.1-8b~h100-sxm5-80gb', ready: '#detail[open] .verdict' },
  { name: 'ollama-offload', hash: 'eng=ollama&cell=llama-3.1-70b~rtx-4090', ready: '#detail[open] .verdict' },
  { name: 'no-tensor-rate', hash: 'cell=llama-3.1-8b~ascend-910b', ready: '#detail[open] .verdict' },
  { name: 'pretrain-nodes', hash: 'task=pretrain&cell=llama-3.1-70b~h100-sxm5-80gb&cnt=64', ready: '#detail[open] .verdict' },
  { name: 'serve-slo-missed', hash: 'view=serve&sm=llama-3.1-70b&sttft=0.001', ready: '#serve-table' },
  { name: 'recommend-purchase', hash: 'view=recommend&rm=llama-3.1-405b&obj=lowest_power&pr=purchase', ready: '#rec-results .rec-item' },
  { name: 'unknown-gpu', hash: 'view=inventory&inv=2*H1000', ready: '#status.error' },
  { name: 'refused-link', hash: 'eng=nonsense&ctx=-5&su=abc', ready: '#url-notice:not([hidden])' },
  { name: 'users-at-slo', hash: 'show=users', ready: '#matrix tbody tr[data-model-id] td' }
];

let i18n, codes;
before(async () => {
  i18n = await import('../../web/src/i18n/i18n.js');
  ({ codes } = await import('../../web/src/i18n/codes.js'));
  i18n.setLang('zh');
});

// The catalog's names (models, families, aliases, GPUs) as the page's engine lists them.
function catalogWords(page) {
  return page.evaluate(() => {
    const E = window.__caliperPage.engine;
    const names = [...E.listModels(), ...E.listGpus()].flatMap((e) => [e.name, e.family, ...(e.aliases || [])]).filter(Boolean).join(' ');
    return names.match(/[A-Za-z][A-Za-z'\u2019-]*/g).map((w) => w.replace(/[-'\u2019]+$/, ''));
  });
}

// Each element that carries an engine code ([data-code]) with its text and
// title (the engine's English message), and the status and link notices.
function engineTexts(page) {
  return page.evaluate(() => {
    const shown = (el) => el && el.checkVisibility() && el.textContent.trim();
    const coded = [...document.querySelectorAll('[data-code]')].filter(shown)
      .map((el) => ({ code: el.dataset.code, text: el.textContent.trim(), title: el.title || '' }));
    const notices = ['#status', '#url-notice'].map((s) => document.querySelector(s)).filter(shown)
      .map((el) => ({ code: el.id, text: el.textContent.trim(), title: el.title || '' }));
    return coded.concat(notices);
  });
}

h.forEachOrigin('engine messages in Chinese', (env) => {
  test('every code the engine lists for errors and warnings the page shows has a Chinese text', async () => {
    const page = await h.openPage(env.context, env.url('lang=zh'));
    const described = await page.evaluate(() => window.__caliperPage.engine.describe());
    assert.ok(described.error_codes.length > 10 && described.warning_codes.length > 30, 'the engine lists its codes');
    // Errors: each shown through i18n.errorText by its code.
    assert.deepEqual(described.error_codes.filter((c) => !codes.zh['error.' + c]), [], 'error codes without Chinese');
    // Warnings, less the recommendation's reasons (written from each
    // option's figures, views/recommend.js) and its list-wide notes (not shown).
    const written = ['cheapest', 'fastest', 'fewest_gpus', 'fits', 'lowest_cost_per_token', 'lowest_power', 'nvlink', 'scaled_out',
      'single_gpu', 'mixed_inventory', 'no_gpus', 'nothing_fits', 'purchase_cards_only', 'purchase_cost_per_token', 'unpriced_last'];
    const missing = described.warning_codes.filter((c) => written.indexOf(c) < 0 && !codes.zh['warn.' + c]);
    assert.deepEqual(missing, [], 'warning codes without Chinese');
    await page.close();
  });

  test('views where the engine warns or refuses show its messages in Chinese', async () => {
    const context = await env.newContext({ viewport: { width: 1400, height: 900 }, locale: 'zh-CN' });
    let names = null, checked = 0;
    for (const view of VIEWS) {
      const page = await h.openPage(context, env.url('lang=zh&' + view.hash));
      await page.waitForSelector(view.ready, { timeout: h.WAIT_MS });
      await page.evaluate(() => document.querySelectorAll('#detail details').forEach((d) => { d.open = true; }));
      if (!names) names = new Set(await catalogWords(page));
      for (const item of await engineTexts(page)) {
        checked++;
        // The engine's English as the text: the page had no Chinese for its code.
        if (item.title && /[a-z]{3,} [a-z]{3,}/.test(item.title)) {
          assert.notEqual(item.text, i18n.sentence(item.title), `${view.name}: ${item.code} shown in the engine's English`);
        }
        const left = i18n.untranslated(item.text).filter((w) => !names.has(w));
        assert.deepEqual(left, [], `${view.name}: English words in ${item.code}: “${item.text.slice(0, 160)}”`);
      }
      if (view.name === 'refused-link') {
        // The link's keys by their controls' names, not as the URL writes them.
        const notice = await page.textContent('#url-notice');
        for (const key of ['eng', 'ctx', 'su']) assert.ok(!new RegExp('\\b' + key + '\\b').test(notice), `${key} in “${notice}”`);
      }
      await h.screenshot(page, `zh-engine-messages-${view.name}-${env.name}`);
      await page.close();
    }
    assert.ok(checked >= VIEWS.length, `engine texts checked: ${checked}`);
  });
});
