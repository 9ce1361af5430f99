// Languages (the switch, lang=zh / lang=en in the URL, the browser's own
// language as the default) and the compact embed=1 view for an <iframe>.
'use strict';
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');
// The dictionaries are ES modules (web/src/i18n), loaded before the tests run.
let zh, en;
before(async () => {
  ({ zh } = await import('../../web/src/i18n/zh.js'));
  ({ en } = await import('../../web/src/i18n/en.js'));
});

const CJK = /[\u4e00-\u9fff]/;
// A narrow matrix (one model family) keeps these pages light; the labels are the same.
const NARROW = 'q=Qwen3';

// What the reader sees in one language: the <html lang>, the title, a control
// label, a view tab and the matrix's corner header.
function labels(page) {
  return page.evaluate(() => ({
    lang: document.documentElement.lang,
    title: document.title,
    task: document.querySelector('label[for="task"]').textContent,
    tab: document.querySelector('.tabs [data-view="matrix"]').textContent,
    corner: document.querySelector('#matrix th.corner').textContent,
    caption: document.querySelector('#matrix caption').textContent,
  }));
}

function assertChinese(l) {
  assert.equal(l.lang, 'zh-CN');
  assert.equal(l.task, zh['ctl.task']);
  assert.equal(l.tab, zh['nav.matrix']);
  assert.ok(l.corner.startsWith(zh['matrix.model']), `corner header ${l.corner}`);
  for (const text of [l.title, l.task, l.tab, l.caption]) assert.match(text, CJK, `Chinese text: ${text}`);
}

function assertEnglish(l) {
  assert.equal(l.lang, 'en');
  assert.equal(l.task, en['ctl.task']);
  assert.equal(l.tab, en['nav.matrix']);
  assert.ok(l.corner.startsWith(en['matrix.model']), `corner header ${l.corner}`);
  for (const text of [l.task, l.tab, l.caption]) assert.doesNotMatch(text, CJK, `English text: ${text}`);
}

h.forEachOrigin('languages and embed', (env) => {
  let page;
  let normalMatrixTop;

  test('the language switch turns the page to Chinese and back, and the URL keeps it', async () => {
    page = await h.openPage(env.context, env.url(NARROW));
    assertEnglish(await labels(page));
    normalMatrixTop = (await page.locator('#matrix-wrap').boundingBox()).y;
    await page.selectOption('#lang', 'zh');
    assertChinese(await labels(page));
    assert.match((await h.pageState(page)).hash, /(^#|&)lang=zh(&|$)/);
    await page.selectOption('#lang', 'en');
    assertEnglish(await labels(page));
    assert.match((await h.pageState(page)).hash, /(^#|&)lang=en(&|$)/);
  });

  test('after a language switch the status line still reports the matrix, not the engine loading', async () => {
    assert.ok(page, 'the page from the first test');
    await page.selectOption('#lang', 'zh');
    const status = await page.textContent('#status');
    await page.selectOption('#lang', 'en');
    assert.notEqual(status, zh['status.loading'], `status after the switch: ${status}`);
    assert.match(status, CJK);
  });

  test('lang=zh in the query opens the page in Chinese', async () => {
    const p = await h.openPage(env.context, `${env.base}?lang=zh#${NARROW}`);
    assertChinese(await labels(p));
    assert.equal(await p.inputValue('#lang'), 'zh');
    await p.close();
  });

  test('without lang the browser language decides; lang=en overrides a Chinese browser', async () => {
    const context = await env.newContext({ locale: 'zh-CN' });
    const p = await h.openPage(context, env.url(NARROW));
    assertChinese(await labels(p));
    await p.goto(env.url('lang=en&' + NARROW));
    await p.reload();
    await h.waitReady(p);
    assertEnglish(await labels(p));
    await p.close();
  });

  test('embed=1 shows the compact view: no header, scenarios or filters, the matrix higher up', async () => {
    const p = await h.openPage(env.context, `${env.base}?embed=1#${NARROW}`);
    assert.ok(await p.evaluate(() => document.documentElement.classList.contains('embed')));
    for (const hidden of ['header.top', '.presets', '#filters', '#embed-code', '#share-link']) {
      assert.equal(await p.isVisible(hidden), false, `${hidden} hidden in embed mode`);
    }
    assert.ok(await p.isVisible('#matrix tbody tr'), 'the matrix is shown');
    assert.ok(await p.isVisible('#controls'), 'the workload controls stay');
    const top = (await p.locator('#matrix-wrap').boundingBox()).y;
    assert.ok(top < normalMatrixTop, `matrix starts higher (${top} < ${normalMatrixTop})`);
    // A link opens the same view in the full page.
    assert.ok(await p.isVisible('#open-full'), '"Open in Caliper" link');
    const href = await p.getAttribute('#open-full', 'href');
    assert.doesNotMatch(href, /embed=1/);
    assert.match(href, /q=Qwen3/);
    await p.close();
  });

  test('the embed code is an <iframe> of this view with embed=1', async () => {
    await page.click('#embed-code');
    await page.waitForFunction(() => document.querySelector('#copy-box').value !== '');
    const snippet = await page.inputValue('#copy-box');
    const src = /^<iframe src="([^"]+)"/.exec(snippet);
    assert.ok(src, `an iframe: ${snippet}`);
    const url = src[1].replace(/&amp;/g, '&');
    assert.ok(url.startsWith(env.base), `same page: ${url}`);
    assert.match(url, /embed=1/);
    assert.match(url, /q=Qwen3/);
    await page.close();
  });
});
