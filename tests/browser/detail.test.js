// A cell's scenario detail (figures, memory chart, "show the math") and the
// CSV export, each checked against the native engine's answer.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const h = require('./support/harness.js');
const cli = require('./support/cli.js');
const cells = require('./support/cells.js');

const MEMORY_PARTS = ['weights_gib', 'kv_cache_gib', 'activations_gib', 'gradients_gib', 'optimizer_gib', 'adapter_gib', 'overhead_gib'];

function estimateRequest(page, model, gpu) {
  return page.evaluate(([m, g]) => {
    const C = window.__caliperPage, s = C.app.state;
    return C.requests.toEstimateRequest(s, m, g, s.cnt);
  }, [model, gpu]);
}

// The stacked bar (rects as tall as the bar), the capacity marker (a line with
// a "capacity …" label beside it) and the bar's part names from their tooltips.
function readChart(page) {
  return page.$eval('#detail svg.chart', (svg) => {
    const rects = [...svg.querySelectorAll('rect')];
    const barH = Math.max(...rects.map((r) => Number(r.getAttribute('height'))));
    const bar = rects.filter((r) => Number(r.getAttribute('height')) === barH);
    const label = [...svg.querySelectorAll('text')].find((t) => /^capacity /.test(t.textContent));
    const labelX = label ? Number(label.getAttribute('x')) : null;
    const line = [...svg.querySelectorAll('line')].find((l) => Math.abs(Number(l.getAttribute('x1')) + 4 - labelX) < 0.01);
    return {
      role: svg.getAttribute('role'),
      barX: bar.length ? Number(bar[0].getAttribute('x')) : null,
      barWidth: bar.reduce((sum, r) => sum + Number(r.getAttribute('width')), 0),
      parts: bar.map((r) => r.querySelector('title').textContent),
      capacityLabel: label ? label.textContent : null,
      capacityX: line ? Number(line.getAttribute('x1')) : null,
    };
  });
}

// RFC 4180 fields: quoted when they hold a comma, quote or line break.
function parseCsv(text) {
  const rows = [];
  let row = [], field = '', quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (ch === '"') quoted = false; else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { row.push(field); field = ''; }
    else if (ch === '\r' && text[i + 1] === '\n') { row.push(field); rows.push(row); row = []; field = ''; i++; }
    else field += ch;
  }
  if (field || row.length) { row.push(field); rows.push(row); }
  return rows;
}

h.forEachOrigin('cell detail and CSV export', (env) => {
  let page;

  test('a cell opens its detail: figures, memory chart and the math, as the engine says', async () => {
    cli.requireCli();
    // Smallest models first: the newest families lead the default order and
    // are often too large for one card.
    // (Llama: a language model, whose figures are tokens/s.)
    page = await h.openPage(env.context, env.url('sort=size&q=Llama'));
    const fit = (await cells.loadedCells(page)).find((c) => c.cls.includes('st-fits'));
    assert.ok(fit, 'a cell that fits one GPU in view');
    await page.click(`#matrix td.c[data-model-id="${fit.model}"][data-gpu-id="${fit.gpu}"]`);
    await page.waitForSelector('#detail[open]');
    const r = cli.estimate(await estimateRequest(page, fit.model, fit.gpu));
    const title = await page.textContent('#detail-title');
    assert.ok(title.includes(r.model.name) && title.includes(r.gpu.name), `title names the model and GPU: ${title}`);
    assert.match((await h.pageState(page)).hash, /(^#|&)cell=/, 'the open cell is in the URL');

    // Decode speed as the engine computes it (shown with at most 2 decimals below 10, 1 below 100).
    const decode = await page.textContent('#detail [data-field="decode_tokens_per_s"] dd');
    // The figure, then its 80% band in brackets where the engine gives one.
    const shown = Number(decode.split(' (')[0].replace(/[^\d.]/g, ''));
    if (r.ranges && r.ranges.decode_tokens_per_s) assert.match(decode, /\(\d[\d.,]*–\d[\d.,]*\)$/, `band: ${decode}`);
    const v = r.decode_tokens_per_s;
    assert.ok(Math.abs(shown - v) <= (v >= 100 ? 0.5 : v >= 10 ? 0.05 : 0.005), `decode ${decode} vs ${v}`);

    // The chart: one bar segment per non-zero memory part, the bar's length
    // against the capacity line in the ratio total : card memory.
    const chart = await readChart(page);
    assert.equal(chart.role, 'img');
    const parts = MEMORY_PARTS.filter((k) => r.memory[k] > 0);
    assert.equal(chart.parts.length, parts.length, `bar segments ${chart.parts.join(' | ')}`);
    assert.ok(chart.capacityLabel && chart.capacityX !== null, 'a capacity line with its label');
    const partsSum = parts.reduce((s, k) => s + r.memory[k], 0);
    const ratio = chart.barWidth / (chart.capacityX - chart.barX);
    assert.ok(Math.abs(ratio - partsSum / r.gpu.memory_gib) < 1e-3, `bar/capacity ${ratio} vs ${partsSum / r.gpu.memory_gib}`);

    // Show the math: the engine's explain terms, in order, with formulas and values.
    await page.click('#detail-math > summary');
    const rows = await page.$$eval('#detail-math tbody tr', (trs) => trs.map((tr) => ({
      term: tr.querySelector('[title]').getAttribute('title'), formula: tr.querySelector('code').textContent,
      value: tr.lastElementChild.textContent })));
    assert.ok(await page.isVisible('#detail-math tbody'), 'the math table is shown');
    assert.deepEqual(rows.map((x) => x.term), r.explain.map((e) => e.term));
    rows.forEach((row, i) => {
      const e = r.explain[i];
      assert.equal(row.formula, e.formula, `formula of ${e.term}`);
      const half = Math.abs(e.value) < 1 ? 0.00005 : 0.005;  // 4 decimals below 1, else 2
      assert.ok(Math.abs(Number(row.value.replace(/,/g, '')) - e.value) <= half + 1e-9 * Math.abs(e.value), `value of ${e.term}: ${row.value} vs ${e.value}`);
    });

    // The URL with the open cell reopens the detail.
    const again = await h.openPage(env.context, page.url());
    await again.waitForSelector('#detail[open]');
    assert.equal(await again.textContent('#detail-title'), title);
    await again.close();

    await page.click('#detail-close');
    await page.waitForFunction(() => !document.querySelector('#detail').open);
    assert.doesNotMatch((await h.pageState(page)).hash, /(^#|&)cell=/, 'closing the detail clears it from the URL');
  });

  test('CSV export: a header and one line per cell, with the engine\'s figures', async () => {
    assert.ok(page, 'the page from the first test');
    if (await page.$('#detail[open]')) await page.click('#detail-close');
    await page.fill('#f-search', 'Llama 3.1');
    await page.waitForFunction(() => window.__caliperPage.app.state.q === 'Llama 3.1');
    const { matrixRequest } = await h.pageState(page);
    assert.equal(matrixRequest.model_filter.search, 'Llama 3.1');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
    assert.match(download.suggestedFilename(), /\.csv$/);
    const text = fs.readFileSync(await download.path(), 'utf8').replace(/^\ufeff/, '');
    const lines = parseCsv(text);
    const header = lines[0];
    for (const key of ['model_id', 'gpu_id', 'gpus_needed', 'status', 'total_gib', 'decode_tokens_per_s', 'train_tokens_per_s', 'usd_per_hour']) {
      assert.ok(header.includes(key), `CSV header has ${key}: ${header.join(',')}`);
    }
    const engine = cli.matrix(matrixRequest);
    assert.ok(engine.models.length >= 1 && engine.models.length < 20, `the search narrows the models (${engine.models.length})`);
    assert.equal(lines.length - 1, engine.models.length * engine.gpus.length, 'one line per model × GPU');
    const col = (name) => header.indexOf(name);
    const seen = new Set();
    for (const row of lines.slice(1)) {
      const mi = engine.models.findIndex((m) => m.id === row[col('model_id')]);
      const gi = engine.gpus.findIndex((g) => g.id === row[col('gpu_id')]);
      assert.ok(mi >= 0 && gi >= 0, `known ids ${row[0]} × ${row[col('gpu_id')]}`);
      seen.add(mi + '|' + gi);
      const cell = engine.cells[mi][gi];
      assert.equal(row[col('status')], cell.status);
      for (const key of ['gpu_count', 'gpus_needed', 'total_gib', 'decode_tokens_per_s', 'usd_per_hour']) {
        const want = cell[key] == null ? '' : String(cell[key]);
        assert.equal(row[col(key)], want, `${key} of ${row[0]} × ${row[col('gpu_id')]}`);
      }
    }
    assert.equal(seen.size, engine.models.length * engine.gpus.length, 'every cell once');
  });

  test('JSON export: the request and the engine\'s matrix for it', async () => {
    assert.ok(page, 'the page from the first test');
    const { matrixRequest } = await h.pageState(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
    assert.match(download.suggestedFilename(), /\.json$/);
    const out = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
    assert.deepEqual(out.request, matrixRequest);
    const engine = cli.matrix(matrixRequest);
    assert.deepEqual(out.result.models.map((m) => m.id), engine.models.map((m) => m.id));
    assert.deepEqual(out.result.gpus.map((g) => g.id), engine.gpus.map((g) => g.id));
    assert.deepEqual(out.result.cells, engine.cells);
    await page.close();
  });
});
