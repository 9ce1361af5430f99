// The matrix for the page, in a few engine calls: the row and column headers
// (kept while the filters stay the same), the cells in view (one call with
// the ids in view), then every cell at once for the whole selection, sent as
// "all" plus the filters, never as a long list of ids. The engine's cost is
// mostly fixed per call and per id it resolves, so one large call beats many
// small ones. The user's own model and GPU go to the engine as objects inside
// the lists (first row, first column).
import * as customRows from '../state/custom-rows.js';
import * as engine from '../engine/engine.js';
import * as i18n from '../i18n/i18n.js';
import { CELL_FIELDS } from '../state/vocabulary.js';
import { toMatrixRequest } from '../state/requests.js';

var SELECTION_KEYS = ['model', 'model_filter', 'gpu', 'gpu_filter'];
var CACHE_SIZE = 8;
var headerCache = [];  // [{key, value}], newest last

function cached(key, compute) {
  for (var i = 0; i < headerCache.length; i++) if (headerCache[i].key === key) return headerCache[i].value;
  var value = compute();
  headerCache.push({ key: key, value: value });
  if (headerCache.length > CACHE_SIZE) headerCache.shift();
  return value;
}

// The request without its model and GPU selection: the workload alone.
function workload(req) {
  var out = {};
  Object.keys(req).forEach(function (k) { if (SELECTION_KEYS.indexOf(k) < 0) out[k] = req[k]; });
  return out;
}

// Row and column headers of the selection: a call with no GPUs gives the
// models, one with no models the GPUs (neither computes a cell).
function headers(req, catalogKey, door) {
  var base = workload(req);
  var models = cached(JSON.stringify(['m', catalogKey, req.model, req.model_filter || null]), function () {
    return door.matrix(Object.assign({}, base, { model: req.model, model_filter: req.model_filter, gpu: [] })).models;
  });
  var gpus = cached(JSON.stringify(['g', catalogKey, req.gpu, req.gpu_filter || null]), function () {
    return door.matrix(Object.assign({}, base, { model: [], gpu: req.gpu, gpu_filter: req.gpu_filter })).gpus;
  });
  return { models: models.slice(), gpus: gpus.slice() };
}

// job.matrix = {models, gpus, cells}; a row is null until a cell of it
// loads, a cell null until it loads. catalogKey changes with the catalog.
// door: the engine the job asks (engine/engine.js unless a test hands in a stand-in).
function start(state, gpuIds, catalogKey, door) {
  var req = toMatrixRequest(state, gpuIds);
  door = door || engine;
  var h = headers(req, catalogKey == null ? '' : catalogKey, door);
  var job = { engine: door, state: state, req: req, matrix: { models: h.models, gpus: h.gpus, cells: h.models.map(function () { return null; }) },
    customModel: false, customGpu: false, done: false, error: null, cnyPerUsd: null };
  addCustom(job);
  return job;
}

function addCustom(job) {
  var s = job.state, m = job.matrix;
  if (s.cg) {
    m.gpus.unshift({ id: customRows.GPU_ID, name: s.cg.name, group: 'custom', memory_gib: s.cg.gpu.memory_gib });
    job.customGpu = true;
  }
  if (s.cm) {
    m.models.unshift({ id: customRows.MODEL_ID, name: s.cm.name, family: i18n.t('custom.family'),
      params_b: s.cm.params_b, active_params_b: s.cm.params_b, modality: 'text', warn: s.cm.warn || null });
    m.cells.unshift(null);
    job.customModel = true;
  }
}

function range(from, to) {
  var out = [];
  for (var i = from; i < to; i++) out.push(i);
  return out;
}

// One side of a block as engine selections: [{spec, at: [indices]}].
// 'all' = every catalog entry of the page's selection (with its filters);
// a list = those entries by id, with no filter (they come from the
// filtered headers). The user's entry (index 0) is a selection of its own.
function sides(job, which, picked) {
  var isModel = which === 'model';
  var custom = isModel ? job.customModel : job.customGpu;
  var list = isModel ? job.matrix.models : job.matrix.gpus;
  var offset = custom ? 1 : 0;
  var out = [];
  var wantsCustom = custom && (picked === 'all' || picked.indexOf(0) >= 0);
  if (wantsCustom) {
    var entry = isModel ? job.state.cm.model : job.state.cg.gpu;
    out.push({ spec: isModel ? { model: [entry] } : { gpu: [entry] }, at: [0], custom: true });
  }
  if (picked === 'all') {
    var spec = isModel ? { model: job.req.model, model_filter: job.req.model_filter } : { gpu: job.req.gpu, gpu_filter: job.req.gpu_filter };
    if (list.length > offset) out.push({ spec: spec, at: range(offset, list.length), custom: false });
  } else {
    var at = picked.filter(function (i) { return i >= offset && i < list.length; });
    var ids = at.map(function (i) { return list[i].id; });
    if (at.length) out.push({ spec: isModel ? { model: ids } : { gpu: ids }, at: at, custom: false });
  }
  return out;
}

function rowArray(job, r) {
  return job.matrix.cells[r] || (job.matrix.cells[r] = job.matrix.gpus.map(function () { return null; }));
}

var REJECTED_CELL = { status: 'no', gpu_count: null, gpus_needed: null };

// Cell i of the engine's "values" layout (cell_values: each field's
// numbers, null as NaN, status and strategy as indices into its lists),
// built with one object shape: ten thousand take a few milliseconds.
function ValueCell(f, i) {
  // The cell reads its figures from the engine's arrays when asked: a
  // whole matrix makes tens of thousands of cells, of which a repaint
  // reads a few hundred (and a sort one column).
  this._f = f;
  this._i = i;
}
// 1 = true. tight: fits by the estimate, not by its 80% memory band;
// users_at_slo_fp8: users_at_slo found with FP8 weights/KV the request left open.
var FLAGS = ['fits_one', 'needs_nvlink', 'tight', 'users_at_slo_fp8'];
// _f: {cv: the engine's cell_values, at: each field's first index in
// cv.values}; cv.values is read on each access, as engine.js replaces
// its view of the module's memory with a copy.
CELL_FIELDS.forEach(function (k) {
  var v = function (self) { return self._f.cv.values[self._f.at[k] + self._i]; };
  var get = k === 'status' ? function () { return this._f.cv.status[v(this)]; }
    : k === 'strategy' ? function () { return this._f.cv.strategy[v(this)]; }
      : k === 'nodes' ? function () { return v(this); }
        : FLAGS.indexOf(k) >= 0 ? function () { return v(this) === 1; }
          // users_at_slo: users-at-SLO mode only; workload_figure: a non-LLM
          // model's own figure (its header's workload_unit).
          : function () { return orNull(v(this)); };
  Object.defineProperty(ValueCell.prototype, k, { get: get, enumerable: true });
});
// The figures as a plain object (the JSON export, a copy).
ValueCell.prototype.toJSON = function () {
  var out = {}, self = this;
  CELL_FIELDS.forEach(function (k) { out[k] = self[k]; });
  return out;
};

function orNull(v) { return v === v ? v : null; }  // NaN stands for null

function valueMaker(cv) {
  var known = cv.fields.length === CELL_FIELDS.length && CELL_FIELDS.every(function (k) { return cv.fields.indexOf(k) >= 0; });
  if (!known || cv.values.length !== cv.fields.length * cv.cells) {
    throw new engine.EngineError({ code: 'engine_mismatch', message: 'the engine sent cell values the page cannot read' });
  }
  var f = { cv: cv, at: {} };
  cv.fields.forEach(function (k, j) { f.at[k] = j * cv.cells; });
  return function (i) { return new ValueCell(f, i); };
}

// Cell i of the compact text layout (cells_layout "columns": one
// row-major array per field), for engines without the byte door: every
// field the engine sent.
function cellMaker(columns) {
  var keys = Object.keys(columns);
  return function (i) {
    var cell = {};
    for (var k = 0; k < keys.length; k++) cell[keys[k]] = columns[keys[k]][i];
    return cell;
  };
}

// One engine call for rows × cols; the user's entries, when the engine
// rejects them, become empty cells and the first rejection is kept on
// the job for the page to show.
function callBlock(job, rows, cols) {
  // The cells as numbers where the engine hands them over so, else the
  // compact text layout (a third of the text of cell objects).
  var door = job.engine;
  var layout = door.takesValues && door.takesValues() ? 'values' : 'columns';
  // cells_only: the headers are the job's already (one call per selection, above).
  var req = Object.assign(workload(job.req), rows.spec, cols.spec, { cells_layout: layout, cells_only: true });
  var out;
  try {
    out = door.matrix(req);
  } catch (e) {
    if (!rows.custom && !cols.custom) throw e;
    if (!job.error) job.error = e;
    rows.at.forEach(function (r) { var row = rowArray(job, r); cols.at.forEach(function (c) { row[c] = REJECTED_CELL; }); });
    return;
  }
  var modelCount = out.models ? out.models.length : out.model_count, gpuCount = out.gpus ? out.gpus.length : out.gpu_count;
  if (modelCount !== rows.at.length || gpuCount !== cols.at.length) {
    throw new engine.EngineError({ code: 'engine_mismatch', message: 'the engine answered a different selection than the page asked for' });
  }
  if (typeof out.cny_per_usd === 'number') job.cnyPerUsd = out.cny_per_usd;
  var makeCell = out.cell_values ? valueMaker(out.cell_values) : cellMaker(out.cell_columns), width = cols.at.length;
  for (var i = 0; i < rows.at.length; i++) {
    var row = rowArray(job, rows.at[i]);
    for (var j = 0; j < width; j++) row[cols.at[j]] = makeCell(i * width + j);
  }
}

// rows, cols: 'all' or lists of indices into job.matrix.models / .gpus.
function loadBlock(job, rows, cols) {
  var rowSides = sides(job, 'model', rows), colSides = sides(job, 'gpu', cols);
  rowSides.forEach(function (r) { colSides.forEach(function (c) { callBlock(job, r, c); }); });
}

// The cells in view: model indices × GPU indices, one call (plus one per
// user's entry among them).
function loadWindow(job, rows, cols) {
  var cells = job.matrix.cells;
  var missing = rows.some(function (r) { return !cells[r] || cols.some(function (c) { return cells[r][c] === null; }); });
  if (missing) loadBlock(job, rows, cols);
}

// One GPU's column for every row (to sort rows by it before the rest loads).
function loadColumn(job, gpuId) {
  var g = -1;
  job.matrix.gpus.forEach(function (x, i) { if (x.id === gpuId) g = i; });
  if (g < 0) return;
  var missing = job.matrix.cells.some(function (row) { return !row || row[g] === null; });
  if (missing) loadBlock(job, 'all', [g]);
}

// Every cell: one call for the page's selection, one more for each user's entry.
function loadRest(job) {
  if (job.done) return job.matrix;
  try {
    loadBlock(job, 'all', 'all');
  } finally {
    job.done = true;
  }
  return job.matrix;
}

function clearCache() { headerCache = []; }

export { start, loadWindow, loadColumn, loadRest, loadRest as complete, workload, clearCache };
