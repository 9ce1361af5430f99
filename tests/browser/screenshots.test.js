// Pictures of the main views for people to look at, written to
// test-results/screenshots/ (git-ignored), from the self-contained file.
// The checks here are the layout ones a picture would show: nothing wider
// than a phone's screen, the views filled in.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const h = require('./support/harness.js');

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const env = h.oneOrigin();

const fileUrl = (query = '', hash = '') => 'file://' + path.join(h.DIST, 'caliper.html') + (query ? '?' + query : '') + (hash ? '#' + hash : '');

async function shoot(page, name, options) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await h.screenshot(page, name, options);
  const file = path.join(h.SCREENSHOTS, name + '.png');
  assert.ok(fs.statSync(file).size > 5000, `${name}.png written`);
}

test('desktop views: matrix (en, zh), cell detail, recommend, inventory, own model', async () => {
  // The cells in view are written with the first paint.
  const page = await h.openPage(env.context, fileUrl());
  await shoot(page, 'matrix-en');

  const fit = await page.$('#matrix td.c.st-multi');
  assert.ok(fit, 'a multi-GPU cell to open');
  await fit.click();
  await page.waitForSelector('#detail[open]');
  await page.click('#detail-math > summary');
  await page.evaluate(() => { for (const e of document.querySelectorAll('#detail, #detail *')) e.scrollTop = 0; });
  await shoot(page, 'detail');
  await page.evaluate(() => document.querySelector('#detail-math').scrollIntoView());
  await shoot(page, 'detail-math');
  await page.click('#detail-close');

  await page.selectOption('#lang', 'zh');
  await shoot(page, 'matrix-zh');
  await page.selectOption('#lang', 'en');

  await page.click('.tabs [data-view="recommend"]');
  await page.waitForSelector('#rec-results li');
  await shoot(page, 'recommend');

  await page.click('.tabs [data-view="inventory"]');
  await page.fill('#inv-gpu-0', '2080 Ti 22GB');
  await page.fill('#inv-count-0', '4');
  await page.click('#inv-run');
  await page.waitForSelector('#inv-results tbody tr');
  await shoot(page, 'inventory');

  await page.click('.tabs [data-view="custom"]');
  await page.fill('#cm-config', '{"model_type": "llama", "hidden_size": 4096,');
  await page.click('#custom-model button[type="submit"]');
  await page.waitForSelector('#cm-config-error');
  await shoot(page, 'custom');
  await page.close();
});

test('embed view in an iframe-sized window', async () => {
  const embed = await env.newContext({ viewport: { width: 900, height: 640 } });
  const page = await h.openPage(embed, fileUrl('embed=1', 'q=Llama 3'));
  await shoot(page, 'embed');
  await embed.close();
});

test('phone width (390 px): no sideways scrolling of the page', async () => {
  const phone = await env.newContext(PHONE);
  const page = await h.openPage(phone, fileUrl());
  await shoot(page, 'phone-matrix');
  await page.evaluate(() => document.querySelector('#matrix-wrap').scrollIntoView());
  await shoot(page, 'phone-matrix-table');
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
  assert.ok(widths.page <= widths.screen, `page ${widths.page}px wide on a ${widths.screen}px screen`);
  // Elements past the right edge, other than those inside a box that scrolls
  // or clips sideways (the matrix, the view tabs).
  const wide = await page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => {
    const r = e.getBoundingClientRect();
    if (!(r.width > 0 && r.right > window.innerWidth + 1)) return false;
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible') return false;
    }
    return true;
  }).slice(0, 5).map((e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${e.className} right=${Math.round(e.getBoundingClientRect().right)}`));
  assert.deepEqual(wide, [], 'elements sticking out of the screen');
  // The first rows are the newest families, often too large for one card.
  const cell = await page.$('#matrix td.c.st-fits, #matrix td.c.st-multi');
  await cell.click();
  await page.waitForSelector('#detail[open]');
  await shoot(page, 'phone-detail');
  await phone.close();
});

test('no console error, page error or dialog, and no request left the machine', () => h.assertClean(env.problems));
