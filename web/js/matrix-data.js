// The matrix for the page, loaded in pieces when the engine is slow: the
// headers first (filters applied by the engine), then the cells in view, then
// the other rows a few at a time between frames. When the engine is fast
// enough (measured on earlier calls) the whole matrix is one call.
// The user's own model and GPU are added here (see custom-rows.js).
(function (root) {
  var C = root.Caliper = root.Caliper || {};
  var ONE_CALL_BUDGET_MS = 30;   // below this predicted time the whole matrix is one engine call
  var CHUNK_BUDGET_MS = 40;      // engine time per background piece
  var msPerCell = null;          // measured: engine milliseconds per cell (running average)

  function measure(cells, ms) {
    if (cells < 50) return;
    var sample = ms / cells;
    msPerCell = msPerCell === null ? sample : 0.7 * msPerCell + 0.3 * sample;
  }

  function timedMatrix(req, cells) {
    var t = performance.now();
    var out = C.engine.matrix(req);
    measure(cells, performance.now() - t);
    return out;
  }

  // job.matrix = {models, gpus, cells}; a row of cells is null until loaded.
  function start(state, gpuIds) {
    var req = C.state.toMatrixRequest(state, gpuIds);
    var models = C.engine.matrix(Object.assign({}, req, { gpu: [] })).models;
    var gpus = C.engine.matrix(Object.assign({}, req, { model: [] })).gpus;
    var job = { state: state, req: req, matrix: { models: models, gpus: gpus, cells: models.map(function () { return null; }) },
      customModel: false, customGpu: false, done: false, error: null };
    addCustom(job);
    if (predicted(job.matrix.models.length * job.matrix.gpus.length) <= ONE_CALL_BUDGET_MS) {
      loadCells(job, allIndices(job.matrix.models), null);
      job.done = true;
    } else if (state.sort === 'gpu' && state.sg) {
      var g = indexOf(job.matrix.gpus, state.sg);
      if (g >= 0) fetchColumn(job, g);
    }
    return job;
  }

  function predicted(cells) { return msPerCell === null ? Infinity : msPerCell * cells; }
  function allIndices(list) { return list.map(function (x, i) { return i; }); }
  function indexOf(list, id) {
    for (var i = 0; i < list.length; i++) if (list[i].id === id) return i;
    return -1;
  }

  function addCustom(job) {
    var s = job.state, m = job.matrix;
    if (s.cg) {
      m.gpus.unshift({ id: C.customRows.GPU_ID, name: s.cg.name, group: 'custom', memory_gib: s.cg.gpu.memory_gib });
      job.customGpu = true;
    }
    if (s.cm) {
      m.models.unshift({ id: C.customRows.MODEL_ID, name: s.cm.name, family: C.i18n.t('custom.family'),
        params_b: s.cm.params_b, active_params_b: s.cm.params_b, modality: 'text' });
      m.cells.unshift(null);
      job.customModel = true;
    }
  }

  function rowArray(job, r) {
    return job.matrix.cells[r] || (job.matrix.cells[r] = job.matrix.gpus.map(function () { return null; }));
  }

  // Loads rows (model indices) for columns cols (gpu indices; null = all).
  function loadCells(job, rows, cols) {
    var m = job.matrix, s = job.state;
    var catalogRows = rows.filter(function (r) { return !(job.customModel && r === 0); });
    var catalogCols = (cols || allIndices(m.gpus)).filter(function (c) { return !(job.customGpu && c === 0); });
    if (catalogRows.length && catalogCols.length) {
      var out = timedMatrix(Object.assign({}, job.req, {
        model: catalogRows.map(function (r) { return m.models[r].id; }),
        gpu: catalogCols.map(function (c) { return m.gpus[c].id; })
      }), catalogRows.length * catalogCols.length);
      if (typeof out.cny_per_usd === 'number') job.cnyPerUsd = out.cny_per_usd;
      catalogRows.forEach(function (r, i) {
        var row = rowArray(job, r);
        catalogCols.forEach(function (c, j) { row[c] = out.cells[i][j]; });
      });
    }
    if (job.customGpu && (cols === null || cols.indexOf(0) >= 0)) {
      catalogRows.forEach(function (r) { rowArray(job, r)[0] = C.customRows.estimateCell(s, m.models[r].id, s.cg.gpu, job); });
    }
    if (job.customModel && rows.indexOf(0) >= 0) {
      var row = rowArray(job, 0);
      (cols || allIndices(m.gpus)).forEach(function (c) {
        row[c] = C.customRows.estimateCell(s, s.cm.model, C.customRows.gpuRef(s, m.gpus[c].id), job);
      });
    }
  }

  // One GPU's column for every row (to sort rows by it before the rest loads).
  function fetchColumn(job, g) {
    loadCells(job, allIndices(job.matrix.models), [g]);
  }

  function loadColumn(job, gpuId) {
    var g = indexOf(job.matrix.gpus, gpuId);
    var missingRows = job.matrix.models.map(function (m, r) { return r; }).filter(function (r) {
      return !job.matrix.cells[r] || job.matrix.cells[r][g] === null;
    });
    if (g >= 0 && missingRows.length) loadCells(job, missingRows, [g]);
  }

  // Rows not fully loaded, in the order given (nearest the view first).
  function missing(job, order) {
    return order.filter(function (r) {
      var row = job.matrix.cells[r];
      return !row || row.some(function (c) { return c === null; });
    });
  }

  // Loads the rest in pieces between frames; onPiece(rows) after each,
  // onDone() at the end. A newer job cancels this one (job.cancelled).
  function continueInBackground(job, order, onPiece, onDone) {
    var queue = missing(job, order);
    var step = function () {
      if (job.cancelled) return;
      if (!queue.length) { job.done = true; onDone(); return; }
      var perRow = Math.max(1, job.matrix.gpus.length);
      var take = msPerCell ? Math.max(1, Math.floor(CHUNK_BUDGET_MS / (msPerCell * perRow))) : 4;
      var rows = queue.splice(0, take);
      try {
        loadCells(job, rows, null);
      } catch (e) {
        job.error = e;
        onDone();
        return;
      }
      onPiece(rows);
      setTimeout(step, 0);
    };
    setTimeout(step, 0);
  }

  // Everything at once (exports need the whole matrix).
  function complete(job) {
    if (job.done) return job.matrix;
    var rows = missing(job, allIndices(job.matrix.models));
    if (rows.length) loadCells(job, rows, null);
    job.done = true;
    return job.matrix;
  }

  C.matrixData = { start: start, load: loadCells, loadColumn: loadColumn, continueInBackground: continueInBackground, complete: complete,
    msPerCell: function () { return msPerCell; } };
  if (typeof module === 'object') module.exports = C.matrixData;
})(typeof window !== 'undefined' ? window : globalThis);
