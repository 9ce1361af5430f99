// Writes the matrix cells: the cells in view first, at once, then the rest in
// small slices on the following frames, so a control change repaints what the
// reader sees within a frame even for ten thousand cells. The table is marked
// aria-busy (and data-pending) until every cell is current.
(function (root) {
  var C = root.Caliper = root.Caliper || {};
  var STATUS_CLASS = { fits: 'c st-fits', 'fits-multi': 'c st-multi', 'multi-node': 'c st-nodes', no: 'c st-no' };
  var PENDING_CLASS = 'c st-pending';  // a cell whose figures are still loading
  var SLICE_MS = 8;       // JavaScript time per frame for the cells out of view
  var OVERSCAN_ROWS = 6;  // rows beyond the visible ones written at once
  var OVERSCAN_COLS = 3;
  // Sizes before the first measurement (CSS: --cell-w, --name-w + --size-w, row heights).
  var DEFAULT_METRICS = { rowH: 35, famH: 23, topH: 150, cellW: 62, leftW: 248 };

  function nextFrame(fn) {
    if (typeof document !== 'undefined' && document.hidden) setTimeout(fn, 0);
    else requestAnimationFrame(fn);
  }

  function writeCells(ref, cellsRow, from, to, fmt) {
    for (var k = from; k < to; k++) {
      var c = ref.cells[k], cell = cellsRow ? cellsRow[c.gi] : null;
      var base = cell == null ? PENDING_CLASS : STATUS_CLASS[cell.status] || STATUS_CLASS.no;
      var cls = base + (c.first ? ' first' : '');
      // Symbol on the first line (bold through ::first-line), figure on the second.
      var content = C.cells.symbol(cell) + '\n' + C.cells.figureText(cell, fmt.metric, fmt.training, fmt.opts);
      if (cls !== c.cls) { c.td.className = cls; c.cls = cls; }
      if (c.model !== ref.id) { c.td.dataset.modelId = ref.id; c.model = ref.id; }
      if (content !== c.content) { c.text.data = content; c.content = content; }
    }
  }

  // Row and column position ranges in view, from the scroll position and the
  // last measured sizes (no layout is forced here).
  function visibleWindow(view, groups, rowCount, colCount) {
    var wrap = view.table.parentElement, m = view.metrics || DEFAULT_METRICS;
    var top = wrap.scrollTop, bottom = top + (wrap.clientHeight || 800);
    var y = m.topH, first = -1, last = -1, i = 0;
    groups.forEach(function (g) {
      if (g.family !== null) y += m.famH;
      g.rows.forEach(function () {
        if (y + m.rowH >= top && y <= bottom) { if (first < 0) first = i; last = i; }
        y += m.rowH;
        i++;
      });
    });
    var left = wrap.scrollLeft, width = (wrap.clientWidth || 1200) - m.leftW;
    return {
      r0: Math.max(0, (first < 0 ? 0 : first) - OVERSCAN_ROWS),
      r1: Math.min(rowCount, (last < 0 ? 20 : last + 1) + OVERSCAN_ROWS),
      c0: Math.max(0, Math.floor(left / m.cellW) - OVERSCAN_COLS),
      c1: Math.min(colCount, Math.ceil((left + width) / m.cellW) + OVERSCAN_COLS)
    };
  }

  // Sizes read once the table is laid out (after a complete fill).
  function measure(view) {
    var row = view.table.querySelector('tbody tr:not(.fam)'), fam = view.table.querySelector('tr.fam');
    var cell = view.table.querySelector('td.c'), head = view.table.querySelector('thead');
    var caption = view.table.querySelector('caption'), size = view.table.querySelector('td.size');
    if (!row || !cell || !head) return;
    view.metrics = {
      rowH: row.offsetHeight || DEFAULT_METRICS.rowH, famH: fam ? fam.offsetHeight : DEFAULT_METRICS.famH,
      topH: head.offsetHeight + (caption ? caption.offsetHeight : 0), cellW: cell.offsetWidth || DEFAULT_METRICS.cellW,
      leftW: row.firstChild.offsetWidth + (size ? size.offsetWidth : 0)
    };
  }

  // ctx: {state, locale, cnyPerUsd, onComplete(ms)}
  function fill(view, matrix, ctx) {
    var start = performance.now();
    var generation = view.fillGeneration = (view.fillGeneration || 0) + 1;
    var fmt = { metric: ctx.state.show, training: C.state.isTraining(ctx.state),
      opts: { locale: ctx.locale, currency: ctx.state.cur, cnyPerUsd: ctx.cnyPerUsd } };
    var refs = view.refs, win = visibleWindow(view, view.groups, refs.length, view.colCount);
    view.fmt = fmt;
    for (var r = win.r0; r < win.r1; r++) {
      var near = view.ensureRow(r);
      writeCells(near, matrix.cells[near.mi], win.c0, win.c1, fmt);
    }
    var queue = [];
    for (r = win.r0; r < win.r1; r++) queue.push(r);
    for (r = 0; r < refs.length; r++) if (r < win.r0 || r >= win.r1) queue.push(r);
    view.table.setAttribute('aria-busy', 'true');
    view.table.dataset.pending = '1';
    var step = function () {
      if (generation !== view.fillGeneration) return;  // a newer render took over
      var sliceStart = performance.now();
      while (queue.length && performance.now() - sliceStart < SLICE_MS) {
        var ref = view.ensureRow(queue.shift());
        writeCells(ref, matrix.cells[ref.mi], 0, ref.cells.length, fmt);
      }
      if (queue.length) { nextFrame(step); return; }
      view.table.removeAttribute('aria-busy');
      delete view.table.dataset.pending;
      nextFrame(function () {
        if (generation !== view.fillGeneration) return;
        measure(view);
        if (ctx.onComplete) ctx.onComplete(performance.now() - start);
      });
    };
    nextFrame(step);
  }

  // Rewrites the rows of these model indices (after more cells loaded); rows
  // not built yet get their cells when the fill queue reaches them.
  function refill(view, matrix, modelIndices) {
    if (!view.fmt) return;
    var wanted = {};
    modelIndices.forEach(function (mi) { wanted[mi] = true; });
    view.refs.forEach(function (ref) {
      if (ref && wanted[ref.mi]) writeCells(ref, matrix.cells[ref.mi], 0, ref.cells.length, view.fmt);
    });
  }

  C.matrixFill = { fill: fill, refill: refill, visibleWindow: visibleWindow };
})(typeof window !== 'undefined' ? window : globalThis);
