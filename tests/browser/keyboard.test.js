// The matrix by keyboard alone: Tab reaches one cell, arrows and
// Home/End/PageDown move it (head and body write rows and columns far from
// the first view as the keyboard reaches them), ArrowUp from the first row
// reaches the column headers and arrows move along them, Enter opens the
// scenario and closing it returns to the same cell. From the self-contained file.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('path');
const h = require('./support/harness.js');
const cli = require('./support/cli.js');

const env = h.oneOrigin();
let page;

// The focused element: a matrix cell's ids, whether it lies wholly inside
// the scroll box below the sticky head and right of the sticky names, and
// inside the window; or
// the sort button's GPU when a header has the keyboard.
function focused(p) {
  return p.evaluate(() => {
    const a = document.activeElement;
    if (a && a.matches('thead button.sort')) return { header: a.dataset.gpu, at: Number(a.parentElement.getAttribute('aria-colindex')) };
    if (!a || !a.matches('#matrix td.c')) return { other: a && a.tagName };
    const wrap = document.querySelector('#matrix-wrap').getBoundingClientRect();
    const head = document.querySelector('#matrix thead tr.gpus th').getBoundingClientRect();  // sticky: where it shows
    const row = a.parentElement;
    const names = row.querySelector('th').getBoundingClientRect().width + row.querySelector('td.size').getBoundingClientRect().width;
    const r = a.getBoundingClientRect();
    const inBox = r.top >= head.bottom - 1 && r.bottom <= wrap.bottom + 1 && r.left >= wrap.left + names - 1 && r.right <= wrap.right + 1;
    const inWindow = r.top >= -1 && r.bottom <= innerHeight + 1 && r.left >= -1 && r.right <= innerWidth + 1;
    const inView = inBox && inWindow;
    return { model: a.dataset.modelId, gpu: a.dataset.gpuId, inView };
  });
}

const press = async (key) => {
  await page.keyboard.press(key);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
};

test('Tab reaches the first cell; arrows move one cell and keep it in view', async () => {
  cli.requireCli();
  page = await h.openPage(env.context, 'file://' + path.join(h.DIST, 'caliper.html'));
  await h.waitRowsBuilt(page);
  const order = await page.evaluate(() => ({
    rows: [...document.querySelectorAll('#matrix tbody tr[data-model-id]')].map((tr) => tr.dataset.modelId),
    cols: [...document.querySelectorAll('#matrix thead th[data-gpu-id]')].map((th) => th.dataset.gpuId)
  }));
  assert.equal(await page.$$eval('#matrix td.c[tabindex="0"]', (tds) => tds.length), 1, 'one cell in the tab order');
  await page.focus('#matrix td.c[tabindex="0"]');
  assert.deepEqual(await focused(page), { model: order.rows[0], gpu: order.cols[0], inView: true });
  await press('ArrowRight');
  assert.deepEqual(await focused(page), { model: order.rows[0], gpu: order.cols[1], inView: true });
  await press('ArrowDown');
  assert.deepEqual(await focused(page), { model: order.rows[1], gpu: order.cols[1], inView: true });
  await press('ArrowUp');
  await press('ArrowUp');
  assert.deepEqual(await focused(page), { header: order.cols[1], at: 4 }, 'ArrowUp from the first row reaches the column header');
  // Along the headers: End reaches the last GPU column (written as the
  // keyboard gets there), Home the first.
  const colCount = await page.$eval('#matrix', (t) => Number(t.getAttribute('aria-colcount')));
  await press('End');
  assert.equal((await focused(page)).at, colCount, 'End: the last column header');
  await press('Home');
  assert.deepEqual(await focused(page), { header: order.cols[0], at: 3 }, 'Home: the first column header');
  await press('ArrowRight');
  assert.deepEqual(await focused(page), { header: order.cols[1], at: 4 });
  await press('ArrowDown');
  assert.deepEqual(await focused(page), { model: order.rows[0], gpu: order.cols[1], inView: true });
});

test('Ctrl+End and Ctrl+Home reach the far corners, written and in view', async () => {
  assert.ok(page, 'the page from the first test');
  const models = cli.listModels(), gpus = cli.listGpus();
  await press('Control+End');
  const last = await focused(page);
  assert.ok(last.inView, 'the last cell is scrolled into view');
  const lastCol = await page.$$eval('#matrix thead th[data-gpu-id]', (ths) => ths[ths.length - 1].dataset.gpuId);
  assert.equal(last.gpu, lastCol, 'the last GPU column');
  // The last row of the default order (by family, then size): the page's own
  // row count says it is the last one.
  const rowIndex = await page.evaluate(() => Number(document.activeElement.parentElement.getAttribute('aria-rowindex')));
  const rowCount = await page.$eval('#matrix', (t) => Number(t.getAttribute('aria-rowcount')));
  assert.equal(rowIndex, rowCount, 'the last row of the table');
  assert.ok(models.some((m) => m.id === last.model) && gpus.some((g) => g.id === last.gpu));
  await press('Control+Home');
  const first = await focused(page);
  assert.ok(first.inView, 'back at the first cell, in view');
  assert.equal(await page.evaluate(() => document.activeElement.parentElement.getAttribute('aria-rowindex')), '4',
    'row 4: two head rows and the first family header above it');
  await press('PageDown');
  const paged = await page.evaluate(() => Number(document.activeElement.parentElement.getAttribute('aria-rowindex')));
  assert.ok(paged > 4 + 9, `PageDown moves ten model rows (row ${paged})`);
  assert.ok((await focused(page)).inView, 'PageDown keeps the cell in view');
});

test('Enter opens the scenario of the focused cell; closing returns to it', async () => {
  assert.ok(page, 'the page from the first test');
  await press('End');
  const at = await focused(page);
  await press('Enter');
  await page.waitForSelector('#detail[open]');
  const cell = await page.evaluate(() => window.__caliperPage.app.state.cell);
  assert.ok(cell.includes(at.model) && cell.includes(at.gpu), `the detail of ${at.model} × ${at.gpu} (${cell})`);
  await page.click('#detail-close');
  await page.waitForFunction(() => !document.querySelector('#detail[open]'));
  const back = await focused(page);
  assert.equal(back.model, at.model);
  assert.equal(back.gpu, at.gpu);
});

test('no console error, page error or dialog, and no request left the machine', () => h.assertClean(env.problems));
