// Writes the matrix's head columns and body: only the rows and columns in
// view, with a margin (matrix/window.js says which), between spacers as tall
// and as wide as the rest. A repaint writes a few hundred cells whatever the
// catalog's size, in place when the window is the same; scrolling writes the
// new window once a frame at most, before the view reaches its edge.
// Printing writes every row and column.
// The table says how many rows and columns it has (aria-rowcount,
// aria-colcount) and where each written one sits (aria-rowindex,
// aria-colindex); it is aria-busy (and data-pending) while only the cells
// in view are loaded. The keyboard's active cell is kept across writes by
// view.keys (keys.js, handed in by view.js, which owns both).
import * as cells from './cells.js';
import * as dom from '../dom/dom.js';
import * as format from '../format/format.js';
import * as matrixWindow from './window.js';
import * as i18n from '../i18n/i18n.js';
import { currencyOf, isTraining } from '../state/defaults.js';

var W = matrixWindow;
var STATUS_CLASS = { fits: 'c st-fits', 'fits-multi': 'c st-multi', 'multi-node': 'c st-nodes', no: 'c st-no' };
var PENDING_CLASS = 'c st-pending';  // a cell whose figures are still loading
var HEAD_ROWS = 2;       // class groups over GPU names (matrix/view.js)
var LEAD_COLS = 2;       // model name and size, before the GPU columns
// Rows and columns written beyond those in view (a repaint's cost grows
// with them), and how close the view may come to the edge of what is
// written before the window moves: a flick of the wheel (about 100 px,
// three rows) from the margin stays inside the rows written.
var OVERSCAN = { rows: 5, cols: 3 };
var MARGIN = { rows: 2, cols: 1 };
// Sizes before the first measurement, as Chromium lays out the style
// sheet: rows 34 px (td.c height), family rows 22 px, the head 88 px
// (three lines of GPU name and memory) under a 31 px caption; the widths
// are read from the style sheet's variables. A wrong guess costs one
// more layout at the first paint, never a wrong picture.
var DEFAULT_SIZES = { rowH: 34, famH: 22, topH: 119, headH: 88 };

// After the next frame is painted (a task queued from the frame's callback).
function afterPaint(fn) {
  if (typeof document !== 'undefined' && document.hidden) setTimeout(fn, 0);
  else requestAnimationFrame(function () { setTimeout(fn, 0); });
}

function cssPixels(el, name, fallback) {
  var v = parseFloat(getComputedStyle(el).getPropertyValue(name));
  return isFinite(v) ? v : fallback;
}

function metrics(view) {
  if (view.metrics) return view.metrics;
  var t = view.table;
  view.metrics = { rowH: DEFAULT_SIZES.rowH, famH: DEFAULT_SIZES.famH, topH: DEFAULT_SIZES.topH, headH: DEFAULT_SIZES.headH,
    cellW: cssPixels(t, '--cell-w', 62), leftW: cssPixels(t, '--name-w', 196) + cssPixels(t, '--size-w', 60) };
  return view.metrics;
}

// The scroll box as last read. Reading it while the page has pending
// changes forces a layout, so a repaint uses the last reading and checks
// it once the new window is laid out (fill).
function readBox(view) {
  var w = view.wrap;
  view.box = { top: w.scrollTop, left: w.scrollLeft, height: w.clientHeight || 800, width: w.clientWidth || 1200 };
  return view.box;
}

function scrollBox(view) { return view.box || readBox(view); }

// The box a window is written for: the scroll box as tall as it grows (its
// max-height). An empty table (the first paint) leaves the box at its least
// height; a window for that would miss the rows the filled box shows, and
// the next frame would build the window again with them.
function windowBox(view) {
  var box = scrollBox(view);
  if (view.boxMaxH === undefined) {
    var max = parseFloat(getComputedStyle(view.wrap).maxHeight);
    view.boxMaxH = isFinite(max) ? max : 0;
  }
  return box.height >= view.boxMaxH ? box : { top: box.top, left: box.left, height: view.boxMaxH, width: box.width };
}

// The window to write for the current scroll position.
function windowNow(view) {
  if (view.printing) return { i0: 0, i1: view.lay.items.length, c0: 0, c1: view.cols.length };
  return W.visible(view.lay, view.cols.length, windowBox(view), metrics(view), OVERSCAN);
}

function cellClass(cell, first) {
  var base = cell == null ? PENDING_CLASS : STATUS_CLASS[cell.status] || STATUS_CLASS.no;
  if (cells.isTight(cell)) base += ' st-tight';
  return first ? base + ' first' : base;
}

// The symbol on the first line, the figure on the second.
function cellText(cell, fmt) {
  if (cell == null) return '';
  return cells.symbol(cell, fmt.metric, fmt.training) + '\n' + cells.figureText(cell, fmt.metric, fmt.training, fmt.opts);
}

function pad(span) {
  var td = document.createElement('td');
  td.className = 'pad';
  td.colSpan = span;
  td.setAttribute('aria-hidden', 'true');
  return td;
}

function spacer(height, span) {
  var body = document.createElement('tbody');
  body.className = 'pad';
  body.setAttribute('aria-hidden', 'true');
  var td = body.appendChild(document.createElement('tr')).appendChild(document.createElement('td'));
  td.colSpan = span;
  td.style.height = height + 'px';
  return body;
}

function familyRow(item, index, span) {
  var tr = document.createElement('tr');
  tr.className = 'fam';
  tr.setAttribute('aria-rowindex', index + HEAD_ROWS + 1);
  var th = tr.appendChild(document.createElement('th'));
  th.scope = 'rowgroup';
  th.colSpan = span;
  th.appendChild(document.createElement('span')).textContent = item.family || '—';
  return tr;
}

function modelRow(view, item, index, win) {
  var tr = document.createElement('tr');
  tr.setAttribute('aria-rowindex', index + HEAD_ROWS + 1);
  var th = tr.appendChild(document.createElement('th'));
  th.scope = 'row';
  th.className = 'mname';
  var size = tr.appendChild(document.createElement('td'));
  size.className = 'size';
  if (win.c0 > 0) tr.appendChild(pad(win.c0));
  var rec = { tr: tr, th: th, size: size, item: item, modelId: null, name: null, sizeText: null, tds: [], texts: [], cls: [], text: [] };
  for (var k = win.c0; k < win.c1; k++) {
    var td = tr.appendChild(document.createElement('td'));
    td.dataset.gpuId = view.matrix.gpus[view.cols[k]].id;
    td.setAttribute('aria-colindex', k + LEAD_COLS + 1);
    // The text sits in a box of fixed size (CSS .cv: contain strict), so
    // a new figure lays out that box alone, not the table around it.
    var box = td.appendChild(document.createElement('div'));
    box.className = 'cv';
    rec.tds.push(td);
    rec.texts.push(box.appendChild(document.createTextNode('')));
    rec.cls.push(null);
    rec.text.push(null);
  }
  if (win.c1 < view.cols.length) tr.appendChild(pad(view.cols.length - win.c1));
  showRow(view, rec, win);
  return rec;
}

// Points a written row at the model now in its place and writes its cells;
// only what changed is touched (a repaint with the same window keeps the
// rows and their layout).
function showRow(view, rec, win) {
  var m = view.matrix, mi = view.order[rec.item.row], model = m.models[mi], cellsRow = m.cells[mi];
  if (rec.modelId !== model.id) {
    rec.modelId = model.id;
    rec.tr.dataset.modelId = model.id;
    for (var j = 0; j < rec.tds.length; j++) rec.tds[j].dataset.modelId = model.id;
  }
  var warn = model.warn ? i18n.warningText(model.warn) : '';
  if (rec.name !== model.name + warn) {
    rec.name = model.name + warn;
    // An assumption made to read the user's own model stands beside its name.
    rec.th.title = warn ? model.name + ' \u2014 ' + warn : model.name;
    rec.th.textContent = warn ? model.name + ' \u26a0' : model.name;
  }
  var sizeText = format.params(view.ctx.locale, model.params_b);
  if (sizeText !== rec.sizeText) { rec.size.textContent = sizeText; rec.sizeText = sizeText; }
  for (var k = win.c0; k < win.c1; k++) {
    var i = k - win.c0, cell = cellsRow ? cellsRow[view.cols[k]] : null;
    var cls = cellClass(cell, view.firsts[k]), text = cellText(cell, view.fmt);
    if (cls !== rec.cls[i]) { rec.tds[i].className = cls; rec.cls[i] = cls; }
    if (text !== rec.text[i]) { rec.texts[i].data = text; rec.text[i] = text; }
  }
}

// What a written body depends on besides the cells: the window, the
// columns and the rows' places (families, group sizes, heights).
function shapeOf(view, win) {
  return JSON.stringify([win, view.colsKey, view.groups.map(function (g) { return [g.family, g.rows.length]; }),
    view.lay.height]);
}

// Writes the window's rows, keeping the keyboard on the same cell: in
// place when the body has the same shape, else built anew.
function writeWindow(view, win) {
  var focused = view.keys.focusedCell(view);
  var head = view.head;
  if (head && (head.c0 !== win.c0 || head.c1 !== win.c1)) view.writeHead(win.c0, win.c1);
  var shape = shapeOf(view, win), w = view.written;
  if (w && w.shape === shape && view.table.contains(w.first)) {
    Object.keys(w.rows).forEach(function (r) { showRow(view, w.rows[r], win); });
  } else {
    buildWindow(view, win, shape);
  }
  view.win = win;
  view.keys.afterWrite(view, focused);
}

// One <tbody> per family, so a family header names its rows.
function buildWindow(view, win, shape) {
  var lay = view.lay, table = view.table, span = view.cols.length + LEAD_COLS;
  var frag = document.createDocumentFragment();
  var top = win.i0 < lay.items.length ? lay.items[win.i0].y : lay.height;
  var bottom = win.i1 < lay.items.length ? lay.items[win.i1].y : lay.height;
  if (top > 0) frag.appendChild(spacer(top, span));
  var tbody = null, group = -1, rows = {};
  for (var i = win.i0; i < win.i1; i++) {
    var item = lay.items[i];
    if (!tbody || item.group !== group) {
      tbody = frag.appendChild(document.createElement('tbody'));
      group = item.group;
    }
    if (item.row === undefined) {
      tbody.appendChild(familyRow(item, i, span));
    } else {
      rows[item.row] = modelRow(view, item, i, win);
      tbody.appendChild(rows[item.row].tr);
    }
  }
  if (lay.height - bottom > 0) frag.appendChild(spacer(lay.height - bottom, span));
  dom.$all('tbody', table).forEach(function (b) { b.remove(); });
  var first = frag.firstChild;
  table.appendChild(frag);
  table.setAttribute('aria-rowcount', lay.items.length + HEAD_ROWS);
  table.setAttribute('aria-colcount', span);
  view.written = { shape: shape, rows: rows, first: first };
}

// The written cell at row position r and column position k, or null.
function cellAt(view, r, k) {
  var rec = view.written && view.written.rows[r], win = view.win;
  if (!rec || k < win.c0 || k >= win.c1) return null;
  return rec.tds[k - win.c0] || null;
}

// Sizes read from the laid-out table (reading forces the layout the
// repaint needs anyway). Returns whether the row heights differ from
// those assumed (the spacers' heights depend on them; the other sizes
// only choose the window).
function measure(view) {
  var t = view.table;
  var row = t.querySelector('tbody tr[data-model-id]'), fam = t.querySelector('tr.fam');
  var cell = row && row.querySelector('td.c:not(.first)'), head = t.querySelector('thead');
  var caption = t.querySelector('caption'), size = row && row.querySelector('td.size');
  if (!row || !cell || !head) return false;
  var old = metrics(view);
  var next = {
    rowH: row.offsetHeight || old.rowH, famH: fam ? fam.offsetHeight : old.famH,
    headH: head.offsetHeight, topH: head.offsetHeight + (caption ? caption.offsetHeight : 0),
    cellW: cell.offsetWidth || old.cellW, leftW: row.firstChild.offsetWidth + (size ? size.offsetWidth : 0)
  };
  view.metrics = next;
  view.measured = true;
  return next.rowH !== old.rowH || next.famH !== old.famH;
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

// Row heights changed (first measurement, a resize): lay the rows out again.
function relayout(view) {
  view.lay = W.layout(view.groups, metrics(view));
  writeWindow(view, windowNow(view));
}

// ctx: {state, locale, cnyPerUsd, partial}. view.lay, .cols, .order,
// .firsts and .matrix are set by matrix/view.js.
function fill(view, ctx) {
  view.ctx = ctx;
  view.fmt = { metric: ctx.state.show, training: isTraining(ctx.state),
    opts: { locale: ctx.locale, currency: currencyOf(ctx.state, i18n.lang()), cnyPerUsd: ctx.cnyPerUsd } };
  view.partial = !!ctx.partial;
  setBusy(view, view.partial);
  var first = !view.win;
  writeWindow(view, windowNow(view));
  if (!view.measured && measure(view)) relayout(view);
  // The box read again, laid out: if it changed (the matrix grew or
  // shrank, the page scrolled meanwhile) and the window no longer covers
  // the view, write it again. The first window is the empty box's (its
  // least height): the rows that the grown box adds lie below the fold of
  // the page and follow on the next frame.
  var now = W.visible(view.lay, view.cols.length, readBox(view), metrics(view), null);
  if (W.covers(view.win, now, { rows: 0, cols: 0 }, view.lay.items.length, view.cols.length)) return;
  if (first) follow(view); else writeWindow(view, windowNow(view));
}

// Scrolling and resizing: a new window once the view nears the edge of
// the one written (once a frame at most).
function follow(view, resized) {
  if (resized) { view.measured = false; view.boxMaxH = undefined; }
  if (view.following) return;
  view.following = true;
  requestAnimationFrame(function () {
    view.following = false;
    if (!view.lay || !view.win) return;
    if (!view.measured && measure(view)) { relayout(view); return; }
    var now = W.visible(view.lay, view.cols.length, readBox(view), metrics(view), null);
    if (!W.covers(view.win, now, MARGIN, view.lay.items.length, view.cols.length)) writeWindow(view, windowNow(view));
  });
}

// Writes the window now if the view left it (a key moved the scroll).
function ensureWritten(view) {
  var now = W.visible(view.lay, view.cols.length, readBox(view), metrics(view), null);
  if (!W.covers(view.win, now, { rows: 0, cols: 0 }, view.lay.items.length, view.cols.length)) writeWindow(view, windowNow(view));
}

// Printing shows the whole matrix.
function setPrinting(view, printing) {
  view.printing = printing;
  if (view.lay && view.win) writeWindow(view, windowNow(view));
}

export { fill, follow, afterPaint, metrics, scrollBox, windowBox, measure, cellAt, ensureWritten, readBox, setPrinting, OVERSCAN };
