// Writes the matrix cells. The cells in view are written at once. While only
// they are loaded (ctx.partial), the other rows are marked stale (blanked by
// the style sheet) until the page fills again with every cell; with the whole
// matrix, the rest is written in large slices right after the frame that
// shows the cells in view. The table is aria-busy (and data-pending) until
// every cell is current.
(function (root) {
  var C = root.Caliper = root.Caliper || {};
  var STATUS_CLASS = { fits: 'c st-fits', 'fits-multi': 'c st-multi', 'multi-node': 'c st-nodes', no: 'c st-no' };
  var PENDING_CLASS = 'c st-pending';  // a cell whose figures are still loading
  var SLICE_MS = 50;      // JavaScript time per task for the cells out of view
  var OVERSCAN_ROWS = 4;  // rows beyond the visible ones written (and loaded) at once
  var OVERSCAN_COLS = 2;
  // Row heights before the first measurement (CSS: td.c height + border).
  var DEFAULT_ROWS = { rowH: 35, famH: 23, topH: 150 };

  // After the next frame is painted (a task queued from the frame's callback).
  function afterPaint(fn) {
    if (typeof document !== 'undefined' && document.hidden) setTimeout(fn, 0);
    else requestAnimationFrame(function () { setTimeout(fn, 0); });
  }

  function writeCells(ref, cellsRow, from, to, fmt) {
    for (var k = from; k < to; k++) {
      var c = ref.cells[k], cell = cellsRow ? cellsRow[c.gi] : null;
      var base = cell == null ? PENDING_CLASS : STATUS_CLASS[cell.status] || STATUS_CLASS.no;
      var cls = base + (c.first ? ' first' : '');
      // Symbol on the first line (bold through ::first-line), figure on the second.
      var content = cell == null ? '' : C.cells.symbol(cell) + '\n' + C.cells.figureText(cell, fmt.metric, fmt.training, fmt.opts);
      if (cls !== c.cls) { c.td.className = cls; c.cls = cls; }
      if (c.model !== ref.id) { c.td.dataset.modelId = ref.id; c.model = ref.id; }
      if (content !== c.content) { c.text.data = content; c.content = content; }
    }
  }

  function markStale(ref, stale) {
    if (ref.stale === stale) return;
    ref.tr.classList.toggle('stale', stale);
    ref.stale = stale;
  }

  function cssPixels(el, name, fallback) {
    var v = parseFloat(getComputedStyle(el).getPropertyValue(name));
    return isFinite(v) ? v : fallback;
  }

  // Sizes before the first measurement: the column widths the style sheet sets.
  function defaultMetrics(view) {
    var t = view.table;
    return { rowH: DEFAULT_ROWS.rowH, famH: DEFAULT_ROWS.famH, topH: DEFAULT_ROWS.topH, cellW: cssPixels(t, '--cell-w', 62),
      leftW: cssPixels(t, '--name-w', 196) + cssPixels(t, '--size-w', 52) };
  }

  // Row and column position ranges in view (with a margin), from the scroll
  // position and the last measured sizes (no layout is forced here).
  function visibleWindow(view, groups, rowCount, colCount) {
    var wrap = view.table.parentElement, m = view.metrics || (view.metrics = defaultMetrics(view));
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

  // Sizes read once the table is laid out (after a complete fill); reading
  // them forces the layout, so the fill's time includes it.
  function measure(view) {
    var row = view.table.querySelector('tbody tr:not(.fam)'), fam = view.table.querySelector('tr.fam');
    var cell = view.table.querySelector('td.c'), head = view.table.querySelector('thead');
    var caption = view.table.querySelector('caption'), size = view.table.querySelector('td.size');
    if (!row || !cell || !head) { void view.table.offsetHeight; return; }
    view.metrics = {
      rowH: row.offsetHeight || DEFAULT_ROWS.rowH, famH: fam ? fam.offsetHeight : DEFAULT_ROWS.famH,
      topH: head.offsetHeight + (caption ? caption.offsetHeight : 0), cellW: cell.offsetWidth || 62,
      leftW: row.firstChild.offsetWidth + (size ? size.offsetWidth : 0)
    };
  }

  function setBusy(view, busy) {
    if (busy) {
      view.table.setAttribute('aria-busy', 'true');
      view.table.dataset.pending = '1';
    } else {
      view.table.removeAttribute('aria-busy');
      delete view.table.dataset.pending;
    }
  }

  // ctx: {state, locale, cnyPerUsd, partial, onComplete(ms)}
  function fill(view, matrix, ctx) {
    var start = performance.now();
    var generation = view.fillGeneration = (view.fillGeneration || 0) + 1;
    var fmt = { metric: ctx.state.show, training: C.state.isTraining(ctx.state),
      opts: { locale: ctx.locale, currency: ctx.state.cur, cnyPerUsd: ctx.cnyPerUsd } };
    var refs = view.refs, win = visibleWindow(view, view.groups, refs.length, view.colCount);
    view.fmt = fmt;
    setBusy(view, true);
    for (var r = win.r0; r < win.r1; r++) {
      var near = view.ensureRow(r);
      markStale(near, false);
      // Partial data: the whole row, so the columns not loaded show as pending.
      if (ctx.partial) writeCells(near, matrix.cells[near.mi], 0, near.cells.length, fmt);
      else writeCells(near, matrix.cells[near.mi], win.c0, win.c1, fmt);
    }
    if (ctx.partial) {
      refs.forEach(function (ref, i) { if (ref && (i < win.r0 || i >= win.r1)) markStale(ref, true); });
      return;
    }
    var next = 0;
    var step = function () {
      if (generation !== view.fillGeneration) return;  // a newer fill took over
      var sliceStart = performance.now();
      for (; next < refs.length; next++) {
        if (performance.now() - sliceStart > SLICE_MS) { setTimeout(step, 0); return; }
        var ref = view.ensureRow(next), cells = matrix.cells[ref.mi];
        if (next >= win.r0 && next < win.r1) {
          writeCells(ref, cells, 0, win.c0, fmt);
          writeCells(ref, cells, win.c1, ref.cells.length, fmt);
        } else {
          writeCells(ref, cells, 0, ref.cells.length, fmt);
          markStale(ref, false);
        }
      }
      setBusy(view, false);
      measure(view);
      if (ctx.onComplete) ctx.onComplete(performance.now() - start);
    };
    afterPaint(step);
  }

  C.matrixFill = { fill: fill, visibleWindow: visibleWindow, afterPaint: afterPaint };
})(typeof window !== 'undefined' ? window : globalThis);
