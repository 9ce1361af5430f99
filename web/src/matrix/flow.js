// The matrix view's repaints: new data (the headers and the cells in view
// at once, then every cell in one engine call after that frame is shown) or
// a new presentation of the data already loaded, with the times they take
// in window.__caliperTimings (read by bench/page-bench.js).
import * as engine from '../engine/engine.js';
import * as i18n from '../i18n/i18n.js';
import * as matrixData from './data.js';
import * as matrixFill from './fill.js';
import * as views from '../views/views.js';
import { currencyOf } from '../state/defaults.js';
import { toEstimateRequest, toMatrixRequest } from '../state/requests.js';

// matrixPaintedMs: page start → the first matrix cells on screen (the task
// after the frame that shows them). lastRepaintMs: control change → the
// cells in view written and laid out (lastEngineMs of it in the engine,
// lastRenderMs in the page). lastFullRepaintMs: control change → every
// cell loaded and those in view written and laid out (null until then;
// the body holds only the window in view, matrix/fill.js);
// lastFullEngineMs: the engine time for the cells out of view, when they
// load after the first frame. lastCells: cells in the matrix.
var timings = window.__caliperTimings = { matrixPaintedMs: null, lastRepaintMs: null, lastEngineMs: null,
  lastRenderMs: null, lastFullRepaintMs: null, lastFullEngineMs: null, lastCells: null };
var repaintStart = 0;
var deps = null, app = null;

function init(options) {
  deps = options;
  app = options.app;
}

function t(key, params) { return i18n.t(key, params); }
function round(ms) { return Math.round(ms * 10) / 10; }

// What the engine's answer depends on: the matrix request (less its
// currency: cells carry dollars, converted on the page), the user's own
// entries and the catalog. A control that leaves it the same (the metric
// unless users, the sort, the language) repaints the matrix already loaded.
function dataKey(state) {
  var req = toMatrixRequest(state, deps.gpuIds(state));
  delete req.currency;
  return JSON.stringify([req, state.cm, state.cg, app.catalogGeneration]);
}

// The last whole matrices shown, newest last: going back to a setting
// just left (INT8, then BF16, then INT8 again) repaints without the engine.
// Each holds its cells' numbers (~6 MB for the whole catalog).
var KEPT = 3;
var kept = [];
function keep(job) {
  kept = kept.filter(function (j) { return j.key !== job.key; }).concat([job]).slice(-KEPT);
}
function forget() { kept = []; }

// New data: the headers and the cells in view at once (painted in this
// task), then every cell in one engine call after that frame is shown.
function render(t0) {
  var start = t0 || performance.now();
  var key = dataKey(app.state);
  if (app.job && !app.job.cancelled && app.job.key === key) {
    repaintMatrix(start);
    return;
  }
  leave();
  var job = kept.filter(function (j) { return j.key === key; })[0];
  if (job) {
    app.job = job;
    app.matrix = job.matrix;
    noteRate(job);
    paint(job, start, performance.now());
    return;
  }
  try {
    job = loadJob(key, start);
  } catch (e) {
    app.job = null;
    deps.showEngineError(e);
    return;
  }
  deps.clearEngineErrors();
  paint(job, start, performance.now());
  if (!job.done) loadRestLater(job);
}

// The engine's time per cell in whole-matrix calls: when the whole
// matrix is predicted to take no longer than WHOLE_CALL_MS, one call loads
// it all (the screen then changes once, with every cell current). 40 ms:
// the 50 ms full-repaint target less the ~10 ms that writing and laying
// out the window in view takes (bench/page-bench.js, in-view repaint).
var WHOLE_CALL_MS = 40;
var NO_OVERSCAN = { rows: 0, cols: 0 };
var engineMsPerCell = null;

function wholeCallFits(m) {
  return engineMsPerCell !== null && engineMsPerCell * m.models.length * m.gpus.length <= WHOLE_CALL_MS;
}

// The best time per cell seen: the first calls run before the browser
// has optimised the engine's code and take several times longer.
function loadWhole(job) {
  var t = performance.now();
  matrixData.loadRest(job);
  var cells = job.matrix.models.length * job.matrix.gpus.length;
  if (cells < 1000) return;  // too few to time
  var perCell = (performance.now() - t) / cells;
  engineMsPerCell = engineMsPerCell === null ? perCell : Math.min(engineMsPerCell, perCell);
}

// A small matrix (up to twice the cells in view, or one the engine answers
// within WHOLE_CALL_MS) is one call; a large one starts with the cells in view.
function loadJob(key, start) {
  var job = matrixData.start(app.state, deps.gpuIds(app.state), app.catalogGeneration);
  job.key = key;
  var m = job.matrix;
  if (app.state.sort === 'gpu' && app.state.sg) matrixData.loadColumn(job, app.state.sg);
  // The page's first matrix loads the cells in view only: its engine calls
  // run before the browser has optimised the engine's code, so every cell
  // counts, and the overscan is out of view (it loads with the rest).
  var win = wholeCallFits(m) ? null : views.matrixWindow(m, timings.matrixPaintedMs === null ? NO_OVERSCAN : undefined);
  if (!win || m.models.length * m.gpus.length <= 2 * win.rows.length * win.cols.length) loadWhole(job);
  else matrixData.loadWindow(job, win.rows, win.cols);
  job.engineMs = performance.now() - start;
  app.job = job;
  app.matrix = m;
  noteRate(job);
  return job;
}

function noteRate(job) {
  if (typeof job.cnyPerUsd === 'number') app.cnyPerUsd = job.cnyPerUsd;
  else if (currencyOf(app.state, i18n.lang()) === 'cny' && app.cnyPerUsd === null) app.cnyPerUsd = exchangeRate();
}

// Writes the cells in view and records the times: the in-view repaint
// (not for the repaint that follows the rest's loading) and, once every
// cell is loaded, the full one. Both include style and layout.
function paint(job, start, engineDone, restLoaded) {
  repaintStart = start;
  timings.lastFullRepaintMs = null;
  views.paintMatrix(job.matrix, { partial: !job.done });
  void document.getElementById('matrix').offsetHeight;
  var end = performance.now();
  if (!restLoaded) {
    timings.lastEngineMs = round(engineDone - start);
    timings.lastRenderMs = round(end - engineDone);
    timings.lastRepaintMs = round(end - start);
  }
  if (job.done) fullDone(job);
  reportMatrix(job);
  if (timings.matrixPaintedMs === null) {
    matrixFill.afterPaint(function () { timings.matrixPaintedMs = round(performance.now()); });
  }
}

function fullDone(job) {
  if (job !== app.job) return;
  if (!job.error) keep(job);
  timings.lastFullRepaintMs = round(performance.now() - repaintStart);
  timings.lastCells = job.matrix.models.length * job.matrix.gpus.length;
}

// The cells out of view: one engine call once the cells in view are on screen.
function loadRestLater(job) {
  matrixFill.afterPaint(function () {
    if (job.cancelled || job !== app.job) return;
    var t = performance.now();
    if (!job.done) {  // an export may have loaded it already
      try {
        loadWhole(job);
      } catch (e) {
        job.error = job.error || e;
      }
      timings.lastFullEngineMs = round(performance.now() - t);
      job.engineMs += performance.now() - t;
      noteRate(job);
    }
    if (app.state.view === 'matrix') paint(job, repaintStart, t, true);
    warmOnce(job);
  });
}

// Once per page, when the browser is idle after the first whole matrix:
// the same matrix again, discarded. The first calls run the engine's code
// before the browser has optimised it (several times slower); this one
// lets it do so, and times the engine as a control change will find it,
// so the first change loads the whole matrix in one call like the rest.
var warmed = false;
function warmOnce(job) {
  if (warmed || typeof requestIdleCallback !== 'function') return;
  warmed = true;
  requestIdleCallback(function () {
    if (job !== app.job) return;
    try {
      var again = matrixData.start(job.state, deps.gpuIds(job.state), app.catalogGeneration);
      loadWhole(again);
    } catch (e) { /* the page's own matrix reports errors; this one is discarded */ }
  }, { timeout: 2000 });
}

// Same data, new presentation (metric, sort, currency, language). While the
// rest is loading, the cells of the new view are loaded first.
function repaintMatrix(start) {
  var job = app.job;
  try {
    if (!job.done && app.state.sort === 'gpu' && app.state.sg) matrixData.loadColumn(job, app.state.sg);
    if (!job.done) {
      var win = views.matrixWindow(job.matrix);
      matrixData.loadWindow(job, win.rows, win.cols);
    }
  } catch (e) {
    deps.showEngineError(e);
    return;
  }
  paint(job, start, performance.now());
}

function reportMatrix(job) {
  if (job !== app.job || app.state.view !== 'matrix') return;
  if (job.error) { deps.showEngineError(job.error, true); return; }
  deps.setStatus(t('status.ready', { models: job.matrix.models.length, gpus: job.matrix.gpus.length, ms: Math.round(job.engineMs) }) +
    (job.done ? '' : ' · ' + t('status.loadingRest')));
}

// The engine's USD → CNY rate, for matrix cells that carry USD figures only.
function exchangeRate() {
  try {
    deps.ensureLists();
    var probe = toEstimateRequest(app.state, app.models[0].id, app.gpus[0].id, 1);
    var rate = engine.estimate(probe).cny_per_usd;
    return typeof rate === 'number' ? rate : null;
  } catch (e) { return null; }
}

// Another view: a matrix still loading reloads when its view returns; a
// whole one stays.
function leave() {
  if (app.job && !app.job.done) app.job.cancelled = true;
}

export { init, render, leave, forget };
