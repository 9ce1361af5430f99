// The recommendation matrix: a real <table>, models as rows (grouped by
// family), GPUs as columns grouped by class. Head and body hold the rows
// and columns in view (matrix/fill.js writes them).
import * as cells from './cells.js';
import * as dom from '../dom/dom.js';
import * as format from '../format/format.js';
import * as i18n from '../i18n/i18n.js';
import * as matrixFill from './fill.js';
import * as matrixKeys from './keys.js';
import * as matrixWindow from './window.js';
import { isTraining } from '../state/defaults.js';

var el = dom.el;
var GROUP_ORDER = ['custom', 'consumer', 'workstation', 'datacenter', 'china', 'other'];

function create(table, callbacks) {
  var view = { table: table, wrap: table.parentElement, colsKey: '', headKey: '', active: null,
    keys: { focusedCell: matrixKeys.focusedCell, afterWrite: matrixKeys.afterWrite } };
  table.addEventListener('click', function (e) { onClick(view, callbacks, e); });
  table.addEventListener('keydown', function (e) { matrixKeys.onKey(view, callbacks, e); });
  view.wrap.addEventListener('scroll', function () { matrixFill.follow(view); }, { passive: true });
  window.addEventListener('resize', function () { matrixFill.follow(view, true); });
  window.addEventListener('beforeprint', function () { matrixFill.setPrinting(view, true); });
  window.addEventListener('afterprint', function () { matrixFill.setPrinting(view, false); });
  view.render = function (matrix, ctx) { render(view, matrix, ctx); };
  view.windowFor = function (matrix, state, over) { return windowFor(view, matrix, state, over); };
  view.focusCell = function (modelId, gpuId) { matrixKeys.focus(view, modelId, gpuId); };
  view.writeHead = function (c0, c1) { writeHeadColumns(view, c0, c1); };
  return view;
}

function columnOrder(gpus) {
  var order = [];
  GROUP_ORDER.concat(['']).forEach(function (group) {
    gpus.forEach(function (g, i) {
      var known = GROUP_ORDER.indexOf(g.group) >= 0;
      if ((known && g.group === group) || (!known && group === '')) order.push(i);
    });
  });
  return order;
}

function compareNumbers(a, b, dir) {
  if (a == null && b == null) return 0;
  if (a == null) return 1;  // empty cells last in either direction
  if (b == null) return -1;
  return dir === 'desc' ? b - a : a - b;
}

// Rows as groups: [{family, rows: [modelIndex...]}]; one unnamed group when flat.
function rowGroups(matrix, state) {
  var models = matrix.models, dir = state.dir;
  var idx = models.map(function (m, i) { return i; });
  if (state.sort === 'family') {
    var groups = [], byFamily = {};
    idx.forEach(function (i) {
      var f = models[i].family || '';
      if (!byFamily[f]) { byFamily[f] = { family: f, rows: [] }; groups.push(byFamily[f]); }
      byFamily[f].rows.push(i);
    });
    groups.forEach(function (g, k) {
      g.rows.sort(function (a, b) { return compareNumbers(models[a].params_b, models[b].params_b, 'asc') || a - b; });
      g.at = k;
      g.newest = g.rows.reduce(function (d, i) { var r = models[i].release_date; return r && r > d ? r : d; }, '');
    });
    // Current models first: families by their newest release (the catalog's
    // release_date), newest first; the other direction puts the oldest
    // first. Families without dates keep the catalog's order, last.
    groups.sort(function (a, b) {
      if (!a.newest || !b.newest) return (a.newest ? -1 : b.newest ? 1 : 0) || a.at - b.at;
      var r = a.newest < b.newest ? 1 : a.newest > b.newest ? -1 : 0;
      return (dir === 'desc' ? -r : r) || a.at - b.at;
    });
    return groups;
  }
  var training = isTraining(state);
  var gpuIndex = state.sort === 'gpu' ? matrix.gpus.map(function (g) { return g.id; }).indexOf(state.sg) : -1;
  idx.sort(function (a, b) {
    var r;
    if (state.sort === 'name') {
      r = String(models[a].name).localeCompare(String(models[b].name));
      r = dir === 'desc' ? -r : r;
    } else if (state.sort === 'gpu' && gpuIndex >= 0) {
      r = compareNumbers(cells.sortValue(matrix.cells[a][gpuIndex], state.show, training),
        cells.sortValue(matrix.cells[b][gpuIndex], state.show, training), dir);
    } else {
      r = compareNumbers(models[a].params_b, models[b].params_b, dir);
    }
    return r || a - b;
  });
  return [{ family: null, rows: idx }];
}

function render(view, matrix, ctx) {
  var s = ctx.state;
  var cols = columnOrder(matrix.gpus);
  var groups = rowGroups(matrix, s);
  var colsKey = JSON.stringify([matrix.gpus.map(function (g) { return g.id + '|' + g.name; }), cols, ctx.lang]);
  if (colsKey !== view.colsKey) {
    view.colsKey = colsKey;
    view.headKey = '';
  }
  var headKey = JSON.stringify([colsKey, s.sort, s.dir, s.sg]);
  if (headKey !== view.headKey) {
    buildHead(view, matrix, cols, ctx);
    view.headKey = headKey;
  }
  view.matrix = matrix;
  view.cols = cols;
  view.groups = groups;
  view.order = flatten(groups);
  view.firsts = cols.map(function (c, k) { return k > 0 && matrix.gpus[c].group !== matrix.gpus[cols[k - 1]].group; });
  view.rowOf = positions(view.order.map(function (mi) { return matrix.models[mi].id; }));
  view.colOf = positions(cols.map(function (c) { return matrix.gpus[c].id; }));
  view.lay = matrixWindow.layout(groups, matrixFill.metrics(view));
  matrixFill.fill(view, ctx);
}

// id → position in the list.
function positions(ids) {
  var out = Object.create(null);
  ids.forEach(function (id, i) { if (!(id in out)) out[id] = i; });
  return out;
}

function flatten(groups) {
  var order = [];
  groups.forEach(function (g) { order = order.concat(g.rows); });
  return order;
}

// The model and GPU indices the reader would see for this matrix and state
// (the window the next repaint writes).
// The cells to load first are those of the box as it is now: at the first
// paint the empty box's, since the engine's first calls run before the
// browser has optimised its code and each cell costs several times more
// (the rows the grown box adds are written pending and load with the rest).
// over: the rows and columns beyond the box to load too (default the
// written window's overscan; none for the page's first paint, whose engine
// calls are the slow ones and whose overscan is out of view).
function windowFor(view, matrix, state, over) {
  var groups = rowGroups(matrix, state), cols = columnOrder(matrix.gpus), order = flatten(groups);
  var fill = matrixFill, lay = matrixWindow.layout(groups, fill.metrics(view));
  var win = matrixWindow.visible(lay, cols.length, fill.scrollBox(view), fill.metrics(view), over || fill.OVERSCAN);
  var rows = [];
  for (var i = win.i0; i < win.i1; i++) if (lay.items[i].row !== undefined) rows.push(order[lay.items[i].row]);
  return { rows: rows, cols: cols.slice(win.c0, win.c1) };
}

function sortHeader(label, sortKey, ctx, gpuId) {
  var s = ctx.state;
  var active = s.sort === sortKey && (!gpuId || s.sg === gpuId);
  var th = el('th', { scope: 'col', 'aria-sort': active ? (s.dir === 'desc' ? 'descending' : 'ascending') : null });
  var btn = el('button', { type: 'button', class: 'sort', dataset: { sort: sortKey, gpu: gpuId || '' },
    title: ctx.t('matrix.sortBy', { name: label.title || label }) });
  btn.appendChild(label.node || document.createTextNode(label));
  btn.appendChild(el('span', { class: 'sort-mark', 'aria-hidden': 'true' }, active ? (s.dir === 'desc' ? '▼' : '▲') : ''));
  th.appendChild(btn);
  return th;
}

// Column label, the same for every card: the short name, then the memory
// the driver reports, in GiB, on a second line.
function gpuLabel(g, ctx) {
  var span = el('span', { class: 'gh' }, [el('span', { class: 'gname' }, shortGpuName(g.name))]);
  if (g.memory_gib != null) span.appendChild(el('span', { class: 'gmem' }, format.number(ctx.locale, g.memory_gib, 1) + ' GiB'));
  return { node: span, title: g.name };
}

// Vendor prefixes and the marketed memory size ("80GB", also inside the
// closing brackets: "(96GB HBM3)" → "(HBM3)") dropped to keep columns
// narrow; the full name is the title.
function shortGpuName(name) {
  var short = String(name).replace(/^(NVIDIA|AMD|Intel|Huawei|Apple)\s+/i, '')
    .replace(/^(GeForce|Radeon Instinct|Instinct|Tesla)\s+/i, '').replace(/\s+Generation\b/i, '')
    .replace(/\s*\b\d+(?:\.\d+)?\s*GB\b/gi, '')
    .replace(/\s*\(([^)]*)\)\s*$/, function (all, inner) {
      inner = inner.replace(/^[\s,]+|[\s,]+$/g, '');
      return inner && inner.length <= 14 ? ' (' + inner + ')' : '';
    }).trim();
  return short || String(name);
}

// Fixed table layout: widths come from <col>s and the table's own width, so
// a repaint never re-measures every cell. Widths are CSS variables.
function colgroup(count) {
  var group = el('colgroup', null, [el('col', { class: 'col-name' }), el('col', { class: 'col-size' })]);
  for (var i = 0; i < count; i++) group.appendChild(el('col', { class: 'col-gpu' }));
  return group;
}

// The head's frame: caption, column widths and the two header rows with
// the model and size corners; the GPU columns' headers follow the window
// (writeHeadColumns, called by matrix/fill.js).
function buildHead(view, matrix, cols, ctx) {
  var table = view.table;
  var caption = table.querySelector('caption') || el('caption');
  var oldHead = table.querySelector('thead'), oldCols = table.querySelector('colgroup');
  if (oldHead) oldHead.remove();
  if (oldCols) oldCols.remove();
  table.insertBefore(caption, table.firstChild);
  var corner = sortHeader(ctx.t('matrix.model'), 'name', ctx);
  corner.setAttribute('rowspan', '2');
  corner.className = 'corner';
  var sizeTh = sortHeader(ctx.t('matrix.size'), 'size', ctx);
  sizeTh.setAttribute('rowspan', '2');
  sizeTh.className = 'corner size';
  var top = el('tr', { class: 'groups' }, [corner, sizeTh]), names = el('tr', { class: 'gpus' });
  caption.insertAdjacentElement('afterend', colgroup(cols.length));
  table.querySelector('colgroup').insertAdjacentElement('afterend', el('thead', null, [top, names]));
  table.style.width = 'calc(var(--name-w) + var(--size-w) + ' + cols.length + ' * var(--cell-w))';
  setFewColumns(view, cols.length);
  view.head = { top: top, names: names, ctx: ctx, c0: -1, c1: -1 };
  if (view.refocus && view.refocus.split('|')[1] === '') refocusHeader(view);
}

// A matrix of a few GPU columns (a search for one card, one class) has
// room to spare: its columns are wider (styles.css, data-cols), so the
// class's full name and the card's full name fit over a single column.
// The sizes the window was laid out with are read again.
var FEW_COLUMNS = 6;
var WIDE_CELL_PX = 90;  // from this width a class's full name fits over one column
function setFewColumns(view, n) {
  var table = view.table, few = n >= 1 && n <= FEW_COLUMNS ? String(n) : '';
  if ((table.dataset.cols || '') !== few) {
    if (few) table.dataset.cols = few; else delete table.dataset.cols;
    view.metrics = null;
    view.measured = false;
  }
  // Read only where the columns are few: reading a style here makes the
  // browser compute the page's styles in the middle of the matrix's build.
  var cellW = few ? parseFloat(getComputedStyle(table).getPropertyValue('--cell-w')) : NaN;
  view.wideColumns = isFinite(cellW) && cellW >= WIDE_CELL_PX;
}

// The class group and name headers of GPU columns c0..c1-1, with spacers
// for the columns before and after.
function writeHeadColumns(view, c0, c1) {
  var head = view.head, ctx = head.ctx, matrix = view.matrix, cols = view.cols, n = cols.length;
  while (head.top.children.length > 2) head.top.lastChild.remove();
  dom.clear(head.names);
  var padTop = function (span) { return el('td', { class: 'pad', colspan: span, 'aria-hidden': 'true' }); };
  if (c0 > 0) {
    head.top.appendChild(padTop(c0));
    head.names.appendChild(padTop(c0));
  }
  var runGroup = null, runTh = null;
  for (var k = c0; k < c1; k++) {
    var g = matrix.gpus[cols[k]], startsGroup = view.firsts[k];
    if (k === c0 || g.group !== runGroup) {
      runGroup = g.group;
      runTh = el('th', { scope: 'colgroup', colspan: 1, class: 'grp' + (startsGroup ? ' first' : ''), dataset: { group: g.group } },
        [el('span', null, ctx.t('group.' + g.group))]);
      head.top.appendChild(runTh);
    } else {
      runTh.colSpan = runTh.colSpan + 1;
    }
    var th = sortHeader(gpuLabel(g, ctx), 'gpu', ctx, g.id);
    th.firstChild.tabIndex = -1;  // reached with ArrowUp from the cells (matrix/keys.js)
    th.dataset.gpuId = g.id;
    th.setAttribute('aria-colindex', k + 3);  // after the model and size columns, counted from 1
    th.className = 'gcol' + (startsGroup ? ' first' : '');
    head.names.appendChild(th);
  }
  // A class header over a single narrow column gets the short form of its
  // name (the full one as its title), so it is never cut ("CONSUM").
  dom.$all('th.grp', head.top).forEach(function (th) {
    var span = th.firstChild, full = th.dataset.full || span.textContent;
    th.dataset.full = full;
    th.title = full;
    var shortKey = 'groupShort.' + th.dataset.group;
    span.textContent = th.colSpan === 1 && !view.wideColumns && i18n.has(shortKey) ? ctx.t(shortKey) : full;
  });
  if (c1 < n) {
    head.top.appendChild(padTop(n - c1));
    head.names.appendChild(padTop(n - c1));
  }
  head.c0 = c0;
  head.c1 = c1;
  if (view.refocus) refocusHeader(view);
}

// After a sort: the keyboard back on the button that sorted.
function refocusHeader(view) {
  var parts = view.refocus.split('|');
  var again = dom.$all('thead button.sort', view.table).filter(function (b) {
    return b.dataset.sort === parts[0] && (b.dataset.gpu || '') === parts[1];
  })[0];
  if (!again) return;
  view.refocus = null;
  again.focus();
}

function onClick(view, callbacks, e) {
  var btn = e.target.closest('button.sort');
  if (btn) {
    // The header is rebuilt with the new sort; keep the keyboard on this button.
    view.refocus = document.activeElement === btn ? btn.dataset.sort + '|' + (btn.dataset.gpu || '') : null;
    callbacks.onSort(btn.dataset.sort, btn.dataset.gpu || '');
    return;
  }
  var td = e.target.closest('td.c');
  if (td) {
    matrixKeys.focus(view, td.dataset.modelId, td.dataset.gpuId);
    callbacks.onOpen(td.dataset.modelId, td.dataset.gpuId);
  }
}

export { create, columnOrder, rowGroups, shortGpuName };
