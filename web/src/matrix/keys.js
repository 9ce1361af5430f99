// Keyboard navigation across matrix cells with a roving tabindex: one cell is
// in the tab order; arrows, Home/End and PageUp/PageDown move it (scrolling
// the matrix and writing the new window when the cell is not written yet);
// Enter or Space opens the scenario. The active cell is kept by model and
// GPU id, so it survives sorting, filtering and new data.
import * as dom from '../dom/dom.js';
import * as matrixFill from './fill.js';
import * as matrixWindow from './window.js';

var PAGE_ROWS = 10;

function rowCount(view) { return view.order ? view.order.length : 0; }
function colCount(view) { return view.cols ? view.cols.length : 0; }

function idsAt(view, r, k) {
  var m = view.matrix;
  return { m: m.models[view.order[r]].id, g: m.gpus[view.cols[k]].id };
}

// Position of the active cell in the current order, or null.
function activePos(view) {
  var a = view.active;
  if (!a || !view.rowOf || !(a.m in view.rowOf) || !(a.g in view.colOf)) return null;
  return { r: view.rowOf[a.m], k: view.colOf[a.g] };
}

// The cell in the tab order: the active one when written, else the first
// cell written (so Tab always reaches the matrix).
function markTabStop(view) {
  var pos = activePos(view), td = pos ? matrixFill.cellAt(view, pos.r, pos.k) : null;
  if (!td) td = view.table.querySelector('tbody td.c');
  if (view.tabStop && view.tabStop !== td) view.tabStop.removeAttribute('tabindex');
  if (td) td.tabIndex = 0;
  view.tabStop = td;
  return td;
}

// Moves the active cell to row position r, column position k; with
// doFocus, scrolls it into view (below the sticky head, right of the
// sticky names) and focuses it.
function setActive(view, r, k, doFocus) {
  if (!rowCount(view) || !colCount(view)) return;
  r = Math.max(0, Math.min(rowCount(view) - 1, r));
  k = Math.max(0, Math.min(colCount(view) - 1, k));
  view.active = idsAt(view, r, k);
  if (doFocus) {
    var fill = matrixFill;
    if (!view.measured) fill.measure(view);
    var box = fill.readBox(view), m = fill.metrics(view);
    var to = matrixWindow.scrollToShow(view.lay, view.lay.rowItem[r], k, box, m, m.headH);
    if (to.top !== box.top) view.wrap.scrollTop = to.top;
    if (to.left !== box.left) view.wrap.scrollLeft = to.left;
    fill.ensureWritten(view);
  }
  var td = markTabStop(view);
  if (doFocus && td) {
    td.focus({ preventScroll: true });
    // The matrix box shows the cell whole already; this scrolls the page
    // when the box itself is partly off screen.
    td.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }
}

function focus(view, modelId, gpuId) {
  if (!view.rowOf || !(modelId in view.rowOf) || !(gpuId in view.colOf)) return;
  setActive(view, view.rowOf[modelId], view.colOf[gpuId], true);
}

// The matrix cell that has the keyboard, by ids (before the body is rewritten).
function focusedCell(view) {
  var a = document.activeElement;
  if (!a || !a.matches || !a.matches('td.c') || !view.table.contains(a)) return null;
  return { m: a.dataset.modelId, g: a.dataset.gpuId };
}

// After the body is rewritten: the same cell keeps the tab stop, and the
// keyboard if it had it and is still written.
function afterWrite(view, focused) {
  if (!view.active) {
    var first = rowCount(view) && colCount(view) ? idsAt(view, 0, 0) : null;
    view.active = first;
  }
  var td = markTabStop(view);
  if (focused && td && td.dataset.modelId === focused.m && td.dataset.gpuId === focused.g) td.focus({ preventScroll: true });
}

function move(view, e) {
  var pos = activePos(view);
  if (!pos) return false;
  var r = pos.r, k = pos.k;
  switch (e.key) {
    case 'ArrowRight': k++; break;
    case 'ArrowLeft': k--; break;
    case 'ArrowDown': r++; break;
    case 'ArrowUp': r--; break;
    case 'PageDown': r += PAGE_ROWS; break;
    case 'PageUp': r -= PAGE_ROWS; break;
    case 'Home': k = 0; if (e.ctrlKey) r = 0; break;
    case 'End': k = colCount(view) - 1; if (e.ctrlKey) r = rowCount(view) - 1; break;
    default: return false;
  }
  setActive(view, r, k, true);
  return true;
}

// Column headers are out of the tab order (a hundred buttons before the
// first cell would be a long walk); ArrowUp from the first row reaches them.
// The sort button of column position k, scrolled to and written.
function headerButton(view, k, scroll) {
  if (scroll) {
    var fill = matrixFill, box = fill.readBox(view);
    var to = matrixWindow.scrollToShow(view.lay, -1, k, box, fill.metrics(view), 0);
    if (to.left !== box.left) view.wrap.scrollLeft = to.left;
    fill.ensureWritten(view);
  }
  var id = view.matrix.gpus[view.cols[k]].id;
  return dom.$all('thead tr.gpus button.sort', view.table).filter(function (b) { return b.dataset.gpu === id; })[0] || null;
}

function onHeaderKey(view, button, e) {
  if (!(button.dataset.gpu in view.colOf)) return;
  var k = view.colOf[button.dataset.gpu];
  var next = { ArrowLeft: k - 1, ArrowRight: k + 1, Home: 0, End: colCount(view) - 1 }[e.key];
  if (e.key === 'ArrowDown') {
    e.preventDefault();
    setActive(view, 0, k, true);
  } else if (next !== undefined && next >= 0 && next < colCount(view)) {
    e.preventDefault();
    var target = headerButton(view, next, true);
    if (target) target.focus({ preventScroll: true });
  }
}

function onKey(view, callbacks, e) {
  var header = e.target.closest && e.target.closest('thead tr.gpus button.sort');
  if (header) { onHeaderKey(view, header, e); return; }
  var td = e.target.closest && e.target.closest('td.c');
  if (!td) return;
  view.active = { m: td.dataset.modelId, g: td.dataset.gpuId };
  if (e.key === 'Enter' || e.key === ' ') {
    e.preventDefault();
    callbacks.onOpen(td.dataset.modelId, td.dataset.gpuId);
    return;
  }
  var pos = activePos(view);
  if (e.key === 'ArrowUp' && pos && pos.r === 0) {
    var button = headerButton(view, pos.k, false);
    if (button) { e.preventDefault(); button.focus(); return; }
  }
  if (move(view, e)) e.preventDefault();
}

export { onKey, focus, focusedCell, afterWrite };
