// Reading matrix cells off the page and checking them against the engine's
// matrix cells (docs/CONTRACT.md "Matrix request and result"). What a cell shows
// is the page's legend: ✓ fits one GPU, N× (⇌ with NVLink) needs N GPUs in a
// server, N×⊞ needs several servers, ✗ does not fit, ≈ tight; the figure under it is
// the "cells show" metric rounded for display.
'use strict';
const assert = require('node:assert/strict');
const cli = require('./cli.js');

const STATUS_CLASS = { fits: 'st-fits', 'fits-multi': 'st-multi', 'multi-node': 'st-nodes', no: 'st-no' };

// Loaded cells in the matrix's visible area (pending ones skipped), in DOM
// order. The page holds only the cells near the view and rewrites them on
// every change, so these are current as soon as a change returns.
function loadedCells(page) {
  return page.$$eval('#matrix td.c:not(.st-pending)', (tds) => {
    const view = document.querySelector('#matrix-wrap').getBoundingClientRect();
    return tds.filter((td) => {
      const r = td.getBoundingClientRect();
      return r.right > view.left && r.left < view.right && r.bottom > view.top && r.top < view.bottom;
    }).map((td) => ({ model: td.dataset.modelId, gpu: td.dataset.gpuId, cls: td.className, text: td.textContent }));
  });
}

// Up to n cells spread over those given, with every status class present kept.
function sample(cells, n) {
  const picked = new Map();
  for (const cls of Object.values(STATUS_CLASS)) {
    const first = cells.find((c) => c.cls.split(' ').includes(cls));
    if (first) picked.set(first.model + '|' + first.gpu, first);
  }
  const step = Math.max(1, Math.floor(cells.length / n));
  for (let i = 0; i < cells.length && picked.size < n; i += step) picked.set(cells[i].model + '|' + cells[i].gpu, cells[i]);
  return [...picked.values()];
}

// ≈ where the engine's cell is tight (fits by the estimate, not by its 80% band);
// N is the count of the cell's plan (gpu_count), the one its figures are for.
function expectedSymbol(cell) {
  const tight = cell.tight === true ? '≈' : '';
  switch (cell.status) {
    case 'fits': return tight || '✓';
    case 'fits-multi': return cell.gpu_count + '×' + (cell.needs_nvlink ? '⇌' : '') + tight;
    case 'multi-node': return cell.gpu_count + '×⊞' + tight;
    default: return '✗';
  }
}

// "1.2K" → 1200, "90" → 90, "7.4" → 7.4 (English compact notation).
const SCALE = { '': 1, K: 1e3, M: 1e6, B: 1e9, T: 1e12 };
function parseCompact(text) {
  const m = /^(\d+(?:\.\d+)?)([KMBT]?)$/.exec(text.replace(/,/g, ''));
  assert.ok(m, `a compact number: ${JSON.stringify(text)}`);
  return Number(m[1]) * SCALE[m[2]];
}

// Half of the last digit the page shows for a value of this size (the page
// shows 1 decimal below 10, whole numbers below 1000, then 1 decimal of K/M/B).
function displayHalfStep(value) {
  const a = Math.abs(value);
  if (a < 10) return 0.05;
  if (a < 1000) return 0.5;
  return 0.05 * Math.pow(1000, Math.floor(Math.log10(a) / 3));
}

// Training time "45m" / "12h" / "3.4d" / "1.2y" → hours, with its rounding.
const HOURS_PER = { m: 1 / 60, h: 1, d: 24, y: 365.25 * 24 };
function parseDuration(text) {
  const m = /^(.+)([mhdy])$/.exec(text);
  assert.ok(m, `a duration: ${JSON.stringify(text)}`);
  const n = parseCompact(m[1]);
  return { hours: n * HOURS_PER[m[2]], halfStep: displayHalfStep(n) * HOURS_PER[m[2]] };
}

function near(actual, expected, halfStep, what) {
  assert.ok(Math.abs(actual - expected) <= halfStep + 1e-9 * Math.abs(expected),
    `${what}: page shows ${actual}, engine says ${expected} (display rounding ±${halfStep})`);
}

// One page cell against the engine's cell, for the "speed" metric (the default):
// inference shows decode tokens/s, training the time to train when the engine
// gives it, else training tokens/s.
function checkCell(pageCell, cell, training) {
  const where = `${pageCell.model} × ${pageCell.gpu}`;
  assert.ok(pageCell.cls.split(' ').includes(STATUS_CLASS[cell.status]), `${where}: class ${pageCell.cls} for status ${cell.status}`);
  const [symbol, figure = ''] = pageCell.text.split('\n');
  assert.equal(symbol, expectedSymbol(cell), `${where}: symbol`);
  if (cell.status === 'no') { assert.equal(figure, '', `${where}: no figure in a cell that does not fit`); return; }
  // A speech, embedding or diffusion model shows its own figure (workload_figure).
  const key = training ? (cell.train_hours != null ? 'train_hours' : 'train_tokens_per_s')
    : cell.decode_tokens_per_s == null && cell.workload_figure != null ? 'workload_figure' : 'decode_tokens_per_s';
  const v = cell[key];
  if (v == null) { assert.equal(figure, '–', `${where}: ${key} is null`); return; }
  if (key === 'train_hours') {
    const d = parseDuration(figure);
    near(d.hours, v, d.halfStep, `${where} ${key}`);
  } else {
    near(parseCompact(figure), v, displayHalfStep(v), `${where} ${key}`);
  }
}

// Samples loaded cells and compares each with `caliper matrix` for the page's
// own request. Returns the sampled page cells.
async function compareWithEngine(page, request, training, n = 14) {
  const cells = sample(await loadedCells(page), n);
  assert.ok(cells.length >= Math.min(n, 4), `enough loaded cells to compare (${cells.length})`);
  const models = [...new Set(cells.map((c) => c.model))];
  const gpus = [...new Set(cells.map((c) => c.gpu))];
  const engine = cli.matrixCells(request, models, gpus);
  for (const c of cells) {
    const cell = engine.get(c.model + '|' + c.gpu);
    assert.ok(cell, `the engine has a cell for ${c.model} × ${c.gpu}`);
    checkCell(c, cell, request.task !== 'inference');
  }
  return cells;
}

module.exports = { STATUS_CLASS, loadedCells, sample, expectedSymbol, parseCompact, displayHalfStep, checkCell, compareWithEngine };
