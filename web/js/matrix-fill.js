// Writes the matrix cells. Every cell gets its status class (a change of
// colour only repaints), but only the cells near the view get their text:
// laying out ten thousand changed texts costs far more than the rest of a
// repaint. The others stay blank until scrolling brings them near (once a
// frame at most), so no cell ever shows an out-of-date figure once the
// matrix is whole.
// The cells in view (with a margin) are written at once. While only they are
// loaded (ctx.partial), the rest waits for the page to fill again with every
// cell; with the whole matrix, the rest is written right after the frame
// that shows the cells in view. The table is aria-busy (and data-pending)
// until every cell is current.
(function (root) {
  var C = root.Caliper = root.Caliper || {};
  var STATUS_CLASS = { fits: 'c st-fits', 'fits-multi': 'c st-multi', 'multi-node': 'c st-nodes', no: 'c st-no' };
  var PENDING_CLASS = 'c st-pending';  // a cell whose figures are still loading
  var SLICE_MS = 50;      // JavaScript time per task for the cells out of view
  var OVERSCAN_ROWS = 4;  // rows beyond the visible ones written (and loaded) at once
  var OVERSCAN_COLS = 2;
  var BAND_ROWS = 12;     // rows beyond the visible ones that hold their text
  var BAND_COLS = 8;      // columns beyond the visible ones that hold their text
  // Row heights before the first measurement (CSS: td.c height + border).
  var DEFAULT_ROWS = { rowH: 35, famH: 23, topH: 150 };

  // After the next frame is painted (a task queued from the frame's callback).
  function afterPaint(fn) {
    if (typeof document !== 'undefined' && document.hidden) setTimeout(fn, 0);
    else requestAnimationFrame(function () { setTimeout(fn, 0); });
  }

  // Cells from..to-1 of a row; withText false leaves them blank.
  function writeCells(ref, cellsRow, from, to, fmt, withText) {
    for (var k = from; k < to; k++) {
      var c = ref.cells[k], cell = cellsRow ? cellsRow[c.gi] : null;
      var base = cell == null ? PENDING_CLASS : STATUS_CLASS[cell.status] || STATUS_CLASS.no;
      var cls = base + (c.first ? ' first' : '');
      if (cls !== c.cls) { c.td.className = cls; c.cls = cls; }
      if (c.model !== ref.id) { c.td.dataset.modelId = ref.id; c.model = ref.id; }
      // The symbol on the first line, the figure on the second.
      var content = cell == null || !withText ? '' : C.cells.symbol(cell) + '\n' + C.cells.figureText(cell, fmt.metric, fmt.training, fmt.opts);
      if (content !== c.content) { c.text.data = content; c.content = content; }
    }
  }

  // A whole row: text inside the band's columns, blank outside.
  function writeRow(view, ref, cellsRow, inBand) {
    var b = view.band, n = ref.cells.length;
    if (!inBand) { writeCells(ref, cellsRow, 0, n, view.fmt, false); return; }
    writeCells(ref, cellsRow, 0, b.c0, view.fmt, false);
    writeCells(ref, cellsRow, b.c0, Math.min(b.c1, n), view.fmt, true);
    writeCells(ref, cellsRow, Math.min(b.c1, n), n, view.fmt, false);
  }

  function bandAround(view, win) {
    return { r0: Math.max(0, win.r0 - BAND_ROWS), r1: Math.min(view.refs.length, win.r1 + BAND_ROWS),
      c0: Math.max(0, win.c0 - BAND_COLS), c1: Math.min(view.colCount, win.c1 + BAND_COLS) };
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

  // Row and column position ranges in view, with a margin of `overscan`
  // ({rows, cols}; the loading margin by default), from the scroll position
  // and the last measured sizes (no layout is forced here).
  function visibleWindow(view, groups, rowCount, colCount, overscan) {
    var o = overscan || { rows: OVERSCAN_ROWS, cols: OVERSCAN_COLS };
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
      r0: Math.max(0, (first < 0 ? 0 : first) - o.rows),
      r1: Math.min(rowCount, (last < 0 ? 20 : last + 1) + o.rows),
      c0: Math.max(0, Math.floor(left / m.cellW) - o.cols),
      c1: Math.min(colCount, Math.ceil((left + width) / m.cellW) + o.cols)
    };
  }

  // Sizes read once the table is laid out (after a complete fill); reading
  // them forces the layout, so the fill's time includes it.
  function measure(view) {
    var t = view.table;
    var row = t.querySelector('tbody tr:not(.fam)'), fam = t.querySelector('tr.fam');
    var cell = row && row.querySelector('td.c'), head = t.querySelector('thead');
    var caption = t.querySelector('caption'), size = row && row.querySelector('td.size');
    if (!row || !cell || !head) { void t.offsetHeight; return; }
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

  // ctx: {state, locale, cnyPerUsd, partial, immediate, onComplete(ms)}
  function fill(view, matrix, ctx) {
    var start = performance.now();
    var generation = view.fillGeneration = (view.fillGeneration || 0) + 1;
    var refs = view.refs, win = visibleWindow(view, view.groups, refs.length, view.colCount);
    view.fmt = { metric: ctx.state.show, training: C.state.isTraining(ctx.state),
      opts: { locale: ctx.locale, currency: ctx.state.cur, cnyPerUsd: ctx.cnyPerUsd } };
    view.partial = !!ctx.partial;
    view.matrixShown = matrix;
    setBusy(view, true);
    for (var r = win.r0; r < win.r1; r++) {
      var near = view.ensureRow(r);
      writeCells(near, matrix.cells[near.mi], win.c0, win.c1, view.fmt, true);
    }
    if (ctx.partial) return;
    view.band = bandAround(view, win);
    var next = 0;
    var step = function () {
      if (generation !== view.fillGeneration) return;  // a newer fill took over
      var sliceStart = performance.now(), b = view.band;
      for (; next < refs.length; next++) {
        if (performance.now() - sliceStart > SLICE_MS) { setTimeout(step, 0); return; }
        var ref = view.ensureRow(next);
        writeRow(view, ref, matrix.cells[ref.mi], next >= b.r0 && next < b.r1);
      }
      setBusy(view, false);
      measure(view);
      if (ctx.onComplete) ctx.onComplete(performance.now() - start);
    };
    // Right away when the cells in view are already on screen.
    if (ctx.immediate) step(); else afterPaint(step);
  }

  // Moves the band: its cells get their text, the cells it leaves go blank
  // (so the text held stays about one band, whatever the scrolling).
  function setBand(view, band) {
    var old = view.band, m = view.matrixShown;
    view.band = band;
    if (!m) return;
    var r0 = Math.min(old.r0, band.r0), r1 = Math.max(old.r1, band.r1);
    for (var r = r0; r < r1; r++) {
      var ref = view.refs[r];
      if (!ref) continue;
      var cells = m.cells[ref.mi], n = ref.cells.length;
      var inOld = r >= old.r0 && r < old.r1, inNew = r >= band.r0 && r < band.r1;
      if (inOld && !inNew) writeCells(ref, cells, old.c0, Math.min(old.c1, n), view.fmt, false);
      if (!inNew) continue;
      if (inOld) {
        writeCells(ref, cells, old.c0, Math.min(old.c1, band.c0, n), view.fmt, false);
        writeCells(ref, cells, Math.max(old.c0, band.c1), Math.min(old.c1, n), view.fmt, false);
      }
      writeCells(ref, cells, band.c0, Math.min(band.c1, n), view.fmt, true);
    }
  }

  // Scrolling: the band follows the view (once a frame at most). While only
  // the cells in view are loaded, the whole matrix follows shortly anyway.
  function follow(view) {
    if (view.following) return;
    view.following = true;
    requestAnimationFrame(function () {
      view.following = false;
      if (view.partial || !view.band || !view.groups) return;
      var win = visibleWindow(view, view.groups, view.refs.length, view.colCount, { rows: 0, cols: 0 });
      var b = view.band;
      var inside = (win.r0 - b.r0 >= BAND_ROWS / 2 || b.r0 === 0) && (b.r1 - win.r1 >= BAND_ROWS / 2 || b.r1 === view.refs.length) &&
        (win.c0 - b.c0 >= BAND_COLS / 2 || b.c0 === 0) && (b.c1 - win.c1 >= BAND_COLS / 2 || b.c1 === view.colCount);
      if (!inside) setBand(view, bandAround(view, win));
    });
  }

  C.matrixFill = { fill: fill, visibleWindow: visibleWindow, afterPaint: afterPaint, follow: follow };
})(typeof window !== 'undefined' ? window : globalThis);
