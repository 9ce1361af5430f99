// What a new reader meets, in English and Chinese, on a desktop and a phone:
// the currency that suits the language, errors in the reader's language,
// typed text that is never lost, figures with their band, the legend's
// "how to read this" line, the recommendation list as long as "Show N" says,
// and a link the page cannot fully read.
'use strict';
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');

let zh, en;
before(async () => {
  ({ zh } = await import('../../web/src/i18n/zh.js'));
  ({ en } = await import('../../web/src/i18n/en.js'));
});

const NARROW = 'q=Llama 3.1';
const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
// Latin words of three letters or more that are not names (GPU and model
// names, units, formats and the engine's figures stay as written).
const ENGLISH_WORD = /\b(?!GPU|GPUs|GiB|NVLink|token|tokens|SLO|TTFT|TPOT|FP8|BF16|LoRA|QLoRA|OCR|SFT|RLHF|JSON|CSV|SVG|PNG|Caliper)[a-z]{4,}\b/;

async function pageWidth(page) {
  return page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
}

h.forEachOrigin('readers', (env) => {
  test('a Chinese browser gets yuan; a chosen currency stays in the URL', async () => {
    const context = await env.newContext({ locale: 'zh-CN' });
    const page = await h.openPage(context, env.url(NARROW));
    assert.equal(await page.inputValue('#currency'), 'cny');
    assert.doesNotMatch((await h.pageState(page)).hash, /cur=/, 'the default is not written into the link');
    assert.match(await page.textContent('#f-price-label'), /人民币/);
    assert.equal((await h.pageState(page)).matrixRequest.currency, 'cny');
    // The recommendation's reasons in yuan, with no dollar figure in their titles.
    await page.click('.tabs [data-view="recommend"]');
    await page.waitForSelector('#rec-results li[data-code="cheapest"]');
    const reasons = await page.$$eval('#rec-results .rec-notes li', (li) => li.map((x) => [x.textContent, x.title]));
    assert.ok(reasons.some(([text]) => text.includes('¥')), 'a price in yuan');
    for (const [text, title] of reasons) assert.doesNotMatch(`${text} ${title}`, /\$/, `${text} | ${title}`);
    await page.click('.tabs [data-view="matrix"]');
    await page.selectOption('#currency', 'usd');
    assert.match((await h.pageState(page)).hash, /(^#|&)cur=usd(&|$)/);
    const again = await h.openPage(context, (await h.pageState(page)).url);
    assert.equal(await again.inputValue('#currency'), 'usd', 'the reader\'s choice wins over the language');
    await h.screenshot(again, `readers-zh-usd-${env.name}`);
    await again.close();
    await page.close();
    const english = await h.openPage(env.context, env.url(NARROW + '&lang=en'));
    assert.equal(await english.inputValue('#currency'), 'usd');
    await english.close();
  });

  test('the price filter is in yuan from the start, whichever view a link opens, and back in dollars with USD', async () => {
    // price=1000: the state keeps dollars (the engine's max_price_usd); the
    // field shows them at the engine's own rate (describe's cny_per_usd).
    const page = await h.openPage(env.context, env.url('lang=zh&view=inventory&price=1000'));
    const rate = await page.evaluate(() => window.__caliperPage.app.cnyPerUsd);
    assert.ok(rate > 1, `the engine's rate at start: ${rate}`);
    await page.click('.tabs [data-view="matrix"]');
    await page.waitForSelector('#matrix tbody tr[data-model-id]');
    assert.match(await page.textContent('#f-price-label'), /人民币/);
    assert.equal(await page.inputValue('#f-price'), String(Math.round(1000 * rate)));
    await page.selectOption('#currency', 'usd');
    assert.match(await page.textContent('#f-price-label'), /美元/);
    assert.equal(await page.inputValue('#f-price'), '1000');
    await page.close();
  });

  test('a view opened by its link does not keep saying the engine is loading', async () => {
    for (const view of ['inventory', 'custom', 'recommend']) {
      const page = await h.openPage(env.context, env.url(`view=${view}`));
      await page.waitForTimeout(100);
      assert.notEqual(await page.textContent('#status'), en['status.loading'], view);
      await page.close();
    }
  });

  test('an unknown GPU in Chinese: the translated message names it, the English detail is the title', async () => {
    const page = await h.openPage(env.context, env.url('lang=zh&view=inventory&inv=2*H1000'));
    await page.waitForFunction(() => document.querySelector('#status').classList.contains('error'));
    const status = await page.textContent('#status');
    assert.match(status, /^未知显卡：“H1000”/);
    assert.doesNotMatch(status.replace(/“[^”]*”/g, ''), /[A-Za-z]{4,}/, `no English inside the Chinese: ${status}`);
    assert.match(await page.getAttribute('#status', 'title'), /unknown GPU/i);
    await h.screenshot(page, `readers-zh-error-${env.name}`);
    await page.close();
  });

  test('typed search text survives a control changed within a keystroke', async () => {
    const page = await h.openPage(env.context, env.url(NARROW));
    await page.fill('#f-search', '');
    await page.type('#f-search', 'qwen', { delay: 10 });
    await page.selectOption('#show', 'memory');  // within the search box's debounce
    await page.waitForFunction(() => window.__caliperPage.app.state.q === 'qwen');
    assert.equal(await page.inputValue('#f-search'), 'qwen');
    assert.equal((await h.pageState(page)).state.show, 'memory');
    await page.close();
  });

  test('"users at the SLO" shows each cell\'s users within the serve view\'s SLO, as the engine counts them', async () => {
    const page = await h.openPage(env.context, env.url(NARROW));
    await page.selectOption('#show', 'users');
    assert.deepEqual((await h.pageState(page)).matrixRequest.slo, { min_user_tokens_per_s: 20 }, 'the serve view\'s default SLO');
    const users = await page.waitForFunction(() => {
      const m = window.__caliperPage.app.job && window.__caliperPage.app.job.matrix;
      if (!m) return false;
      for (const td of document.querySelectorAll('#matrix td.c')) {
        const i = m.models.findIndex((x) => x.id === td.dataset.modelId);
        const g = m.gpus.findIndex((x) => x.id === td.dataset.gpuId);
        const cell = i >= 0 && g >= 0 && m.cells[i] && m.cells[i][g];
        if (cell && cell.users_at_slo >= 1) return td.textContent.includes(String(cell.users_at_slo)) && cell.users_at_slo;
      }
      return false;
    }, null, { timeout: 30000 });
    assert.ok(await users.jsonValue() >= 1);
    await page.close();
  });

  test('training tokens as 1T or 1e12', async () => {
    const page = await h.openPage(env.context, env.url(NARROW + '&task=pretrain'));
    for (const text of ['1e12', '1T', '2.5e11']) {
      await page.fill('#train-tokens', text);
      await page.press('#train-tokens', 'Tab');
      await page.waitForFunction((v) => window.__caliperPage.app.state.tt === v, Number(text.replace('T', 'e12')));
      assert.equal(await page.getAttribute('#train-tokens', 'aria-invalid'), null, text);
      // Committed, the field keeps the text as typed (not 1000000000000).
      assert.equal(await page.inputValue('#train-tokens'), text);
    }
    await page.close();
    // From a link the count reads short, and the placeholder in a form the
    // field takes; in Chinese 1万亿 is taken too.
    const zhPage = await h.openPage(env.context, env.url(NARROW + '&task=pretrain&lang=zh&tt=2000000000000'));
    assert.equal(await zhPage.inputValue('#train-tokens'), '2T');
    assert.equal(await zhPage.getAttribute('#train-tokens', 'placeholder'), '1T');
    await zhPage.fill('#train-tokens', '1万亿');
    await zhPage.press('#train-tokens', 'Tab');
    await zhPage.waitForFunction(() => window.__caliperPage.app.state.tt === 1e12);
    assert.equal(await zhPage.getAttribute('#train-tokens', 'aria-invalid'), null, '1万亿');
    await zhPage.close();
  });

  test('the legend reads fits / tight / no, with a how-to-read line (en and zh)', async () => {
    for (const [lang, dict] of [['en', en], ['zh', zh]]) {
      const page = await h.openPage(env.context, env.url(NARROW + '&lang=' + lang));
      assert.equal(await page.textContent('#legend-howto'), dict['legend.howto']);
      assert.ok(await page.isVisible('#legend-howto'));
      assert.ok((await page.textContent('#legend')).includes(dict['legend.tight']));
      await page.close();
    }
  });

  test('one of a thing reads singular; the phone\'s how-to-read line is as small as the legend\'s notes; one name for the micro-batch in Chinese', async () => {
    // One request a second: "1 request/s", not "1 requests/s".
    const serve = await h.openPage(env.context, env.url('view=serve&sm=llama-3.1-8b&sr=1'));
    if (await serve.evaluate(() => window.__caliperPage.engine.canServe())) {
      assert.match(await serve.textContent('#serve-verdict'), /^For 1 request\/s: /);
    }
    await serve.close();
    const phone = await env.newContext(PHONE);
    const page = await h.openPage(phone, env.url(NARROW));
    const sizes = await page.evaluate(() => ['#legend-howto', '#legend li', '.figure-note'].map((q) => parseFloat(getComputedStyle(document.querySelector(q)).fontSize)));
    assert.ok(sizes[0] <= Math.max(sizes[1], sizes[2]) + 0.5, `how-to-read ${sizes[0]} px beside ${sizes[1]} and ${sizes[2]} px`);
    await page.close();
    // The scenario control, the detail's knob and its plan line name the micro-batch alike.
    const zhPage = await h.openPage(env.context, env.url('lang=zh&task=lora&cell=llama-3.1-8b~h100-sxm5-80gb'));
    await zhPage.waitForSelector('#detail[open] .verdict');
    assert.equal(await zhPage.textContent('#batch-label'), zh['ctl.microBatch']);
    assert.equal(await zhPage.textContent('label[for="detail-micro-batch"]'), zh['ctl.microBatch']);
    assert.match(await zhPage.textContent('#detail .verdict'), /微批大小 \d+/);
    await zhPage.close();
  });

  test('a cell\'s detail shows the figures with their 80% band where the engine gives one', async () => {
    const page = await h.openPage(env.context, env.url(NARROW + '&cell=llama-3.1-8b~rtx-4090'));
    await page.waitForSelector('#detail[open] [data-field="decode_tokens_per_s"] dd');
    const r = await page.evaluate(() => {
      const C = window.__caliperPage;
      return C.engine.estimate(C.requests.toEstimateRequest(C.app.state, 'llama-3.1-8b', 'rtx-4090', 'auto'));
    });
    const text = await page.textContent('#detail [data-field="decode_tokens_per_s"] dd');
    if (r.ranges && r.ranges.decode_tokens_per_s) {
      assert.match(text, /\(\d[\d.,]*–\d[\d.,]*\)$/, `band beside the figure: ${text}`);
    } else {
      assert.doesNotMatch(text, /\(/, 'no band where the engine gives none');
    }
    await h.screenshot(page, `readers-detail-band-${env.name}`);
    await page.close();
  });

  test('"Show 5" lists five options, ranked 1 to 5', async () => {
    const page = await h.openPage(env.context, env.url('view=recommend&top=5&rm=llama-3.1-8b'));
    await page.waitForSelector('#rec-results li.rec-item');
    const ranks = await page.$$eval('#rec-results li.rec-item', (items) => items.map((i) => Number(i.dataset.rank)));
    assert.deepEqual(ranks, [1, 2, 3, 4, 5]);
    await page.close();
  });

  test('a link cut short says what was left out, in the reader\'s language', async () => {
    const cm = encodeURIComponent(JSON.stringify({ name: 'x'.repeat(50000), params_b: 7 }));
    for (const [lang, dict] of [['en', en], ['zh', zh]]) {
      const page = await h.openPage(env.context, env.url(`${NARROW}&lang=${lang}&cm=${cm}`));
      const notice = await page.textContent('#url-notice');
      assert.ok(notice.startsWith(dict['status.urlRefused'].split('{keys}')[0]), notice);
      assert.ok(notice.includes(dict['urlKey.cm']));
      assert.doesNotMatch(await page.textContent('#status'), /null/);
      await page.close();
    }
    // A model that reads, with a 50,000-character name: kept, its name cut
    // to 200 characters (url-codec.js), and the page says so.
    const long = encodeURIComponent(JSON.stringify({ name: 'y'.repeat(50000), model: { params_b: 7 } }));
    for (const [lang, dict] of [['en', en], ['zh', zh]]) {
      const page = await h.openPage(env.context, env.url(`${NARROW}&lang=${lang}&cm=${long}`));
      const notice = await page.textContent('#url-notice');
      assert.equal(notice, dict['status.urlShortened'].replace('{keys}', dict['urlKey.cm']).replace('{n}', '200'));
      assert.equal(await page.evaluate(() => window.__caliperPage.app.state.cm.name.length), 200);
      await page.close();
    }
  });

  test('My GPUs: the Task select marks its column, headers sort, a row opens its scenario; no sideways page on a phone', async () => {
    const phone = await env.newContext(PHONE);
    const page = await h.openPage(phone, env.url('view=inventory&task=qlora&inv=4*2080 Ti 22GB|1*RTX 4090'));
    await page.waitForSelector('#inv-results tbody tr');
    assert.equal(await page.$eval('#inv-results thead th.current button', (b) => b.dataset.sort), 'qlora');
    const w = await pageWidth(page);
    assert.ok(w.page <= w.screen, `page ${w.page}px wide on a ${w.screen}px screen`);
    // Every column on screen: each row a card whose task cells carry their
    // column's name, nothing scrolled out of the table's box.
    const box = await page.$eval('#inv-results .table-scroll', (d) => ({ scroll: d.scrollWidth, client: d.clientWidth }));
    assert.ok(box.scroll <= box.client, `table ${box.scroll}px in a ${box.client}px box`);
    const first = await page.$$eval('#inv-results tbody tr:first-child td[data-label]', (tds) => tds.map((td) => {
      const r = td.getBoundingClientRect();
      return { label: td.dataset.label, left: r.left, right: r.right, before: getComputedStyle(td, '::before').content };
    }));
    assert.deepEqual(first.map((c) => c.label), ['inference', 'lora', 'qlora', 'full'].map((k) => en['inv.' + k]));
    for (const c of first) {
      assert.ok(c.left >= 0 && c.right <= w.screen, `${c.label} on screen (${c.left}-${c.right})`);
      assert.equal(c.before, JSON.stringify(c.label), 'the column name beside the figure');
    }
    await h.screenshot(page, `readers-inventory-phone-${env.name}`, { fullPage: true });
    await page.click('#inv-results button.sort[data-sort="size"]');
    const sizes = await page.$$eval('#inv-results tbody tr td.num', (td) => td.map((x) => parseFloat(x.textContent.replace(/,/g, ''))));
    assert.deepEqual(sizes, sizes.slice().sort((x, y) => x - y), 'sorted by size, smallest first');
    await page.click('#inv-results button.sort[data-sort="size"]');
    const down = await page.$$eval('#inv-results tbody tr td.num', (td) => td.map((x) => parseFloat(x.textContent.replace(/,/g, ''))));
    assert.deepEqual(down, sizes.slice().reverse().sort((x, y) => y - x), 'then largest first');
    await page.click('#inv-results tbody tr:first-child th button');
    await page.waitForSelector('#detail[open]');
    assert.match((await h.pageState(page)).hash, /(^#|&)cell=/);
    await page.close();
  });

  test('Chinese pages read in Chinese: matrix, recommend and inventory, desktop and phone', async () => {
    for (const [size, options] of [['desktop', {}], ['phone', PHONE]]) {
      const context = await env.newContext(options);
      for (const view of ['matrix', 'recommend', 'inventory']) {
        const hash = `lang=zh&view=${view}&${NARROW}` + (view === 'inventory' ? '&inv=4*2080 Ti 22GB' : '');
        const page = await h.openPage(context, env.url(hash));
        await page.waitForTimeout(200);
        const words = await page.evaluate((re) => {
          const pattern = new RegExp(re);
          const out = [];
          const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let n = walk.nextNode(); n; n = walk.nextNode()) {
            const e = n.parentElement;
            if (!e || e.closest('[hidden], script, style, option, datalist, #matrix, .rec-main h3, [data-code], .version, #cmp-results, .inv-table tbody th, .inv-table caption')) continue;
            if (!e.getClientRects().length) continue;
            if (pattern.test(n.textContent)) out.push(n.textContent.trim().slice(0, 80));
          }
          return out;
        }, ENGLISH_WORD.source);
        assert.deepEqual(words, [], `English words in the Chinese ${view} view (${size})`);
        if (size === 'phone') {
          const w = await pageWidth(page);
          assert.ok(w.page <= w.screen, `${view}: page ${w.page}px wide on a ${w.screen}px screen`);
        }
        await h.screenshot(page, `readers-zh-${view}-${size}-${env.name}`, { fullPage: size === 'phone' && view !== 'matrix' });
        await page.close();
      }
    }
  });
});
