// A GPU of the reader's own, priced in the reader's currency: a Chinese
// reader types yuan, the link keeps the yuan as typed, and the detail shows
// the engine's figures for them; a change of currency converts what is typed.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');
const cli = require('./support/cli.js');

// Datasheet-like figures of a made-up card; the prices are the reader's own.
const CARD = { name: 'My 48G card', memory_gib: '48', bandwidth_gbps: '960', bf16_tflops: '150' };
const PRICE_CNY = 30000;
const CLOUD_CNY_PER_HOUR = 5;

async function fillCard(page) {
  await page.click('.tabs [data-view="custom"]');
  for (const [key, value] of Object.entries(CARD)) await page.fill(`#cg-${key}`, value);
  await page.fill('#cg-price_usd', String(PRICE_CNY));
  await page.fill('#cg-cloud_usd_per_hour', String(CLOUD_CNY_PER_HOUR));
}

h.forEachOrigin('own GPU priced in yuan', (env) => {
  test('a Chinese reader types yuan: the link keeps them and the detail shows them', async () => {
    cli.requireCli();
    const page = await h.openPage(env.context, env.url('lang=zh&view=custom'));
    assert.match(await page.textContent('label[for="cg-price_usd"]'), /^价格（人民币）/);
    assert.match(await page.textContent('label[for="cg-cloud_usd_per_hour"]'), /^云端每小时价格（人民币）/);
    // A size past the engine's bound: what it expected, in Chinese, the engine's words as the title.
    await fillCard(page);
    await page.fill('#cg-memory_gib', '99999');
    await page.click('#custom-gpu button[type="submit"]');
    const error = await page.waitForSelector('#custom-gpu .field-error');
    assert.match(await error.textContent(), /^取值无效：应不大于 2048，实际为 99999/);
    assert.match(await error.getAttribute('title'), /expected a number at most 2048, got 99999/);
    await page.fill('#cg-memory_gib', CARD.memory_gib);
    await page.click('#custom-gpu button[type="submit"]');
    await page.waitForFunction(() => window.__caliperPage.app.state.cg);
    const { state, url } = await h.pageState(page);
    // The engine's own keys for yuan (docs/CONTRACT.md "Catalog listings").
    assert.equal(state.cg.gpu.price_cny, PRICE_CNY);
    assert.equal(state.cg.gpu.price_usd, undefined);
    assert.deepEqual(state.cg.gpu.cloud_prices.map((p) => [p.currency, p.per_gpu_hour]), [['cny', CLOUD_CNY_PER_HOUR]]);
    assert.equal(state.cg.gpu.cloud_usd_per_hour, undefined);

    // The link reopens the card with its yuan; its detail has the engine's figures.
    const again = await h.openPage(env.context, url.replace('view=custom', 'view=matrix') + '&cell=llama-3.1-8b~custom-gpu');
    await again.waitForSelector('#detail:not([hidden]) .figures');
    const reopened = (await h.pageState(again)).state.cg.gpu;
    assert.deepEqual(reopened, state.cg.gpu);
    const r = cli.estimate({ model: 'llama-3.1-8b', gpu: reopened, gpu_count: 'auto', currency: 'cny' });
    assert.equal(r.purchase_cny, PRICE_CNY);
    assert.equal(r.cny_per_hour, CLOUD_CNY_PER_HOUR);
    const figures = await again.textContent('#detail .figures');
    assert.ok(figures.includes('¥30,000'), `the purchase price as typed: ${figures}`);
    assert.match(figures, /云端租用¥5(\.00)?\/小时/, 'the cloud price as typed');
    await h.screenshot(again, `own-gpu-yuan-detail-${env.name}`);
    await again.close();

    // The reader turns to dollars: the labels say so, the typed figures follow at the engine's rate.
    const rate = await page.evaluate(() => window.__caliperPage.app.cnyPerUsd);
    await page.selectOption('#currency', 'usd');
    assert.match(await page.textContent('label[for="cg-price_usd"]'), /^价格（美元）/);
    assert.equal(Number(await page.inputValue('#cg-price_usd')), Math.round(PRICE_CNY / rate * 100) / 100);
    await page.click('#custom-gpu button[type="submit"]');
    await page.waitForFunction(() => window.__caliperPage.app.state.cg.gpu.price_usd != null);
    const inUsd = (await h.pageState(page)).state.cg.gpu;
    assert.equal(inUsd.price_cny, undefined);
    assert.ok(Math.abs(inUsd.price_usd - PRICE_CNY / rate) < 0.01, `${inUsd.price_usd} USD`);
    await page.close();
  });

  test('on a phone in Chinese the form is in yuan and fits the screen', async () => {
    const phone = await env.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'zh-CN' });
    const page = await h.openPage(phone, env.url('view=custom'));
    assert.match(await page.textContent('label[for="cg-price_usd"]'), /人民币/);
    await fillCard(page);
    await page.click('#custom-gpu button[type="submit"]');
    await page.waitForFunction(() => window.__caliperPage.app.state.cg);
    assert.equal((await h.pageState(page)).state.cg.gpu.price_cny, PRICE_CNY);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `no sideways page (${width} px)`);
    await page.$eval('#custom-gpu', (f) => f.scrollIntoView());
    await h.screenshot(page, `own-gpu-yuan-phone-${env.name}`);
    await page.close();
  });
});
