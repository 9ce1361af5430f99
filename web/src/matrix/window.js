// Where the matrix's rows lie and which of them (and which columns) are in
// view, from the scroll position and the row and column sizes. Pure: the
// table body holds only this window of rows and columns (matrix/fill.js),
// with spacers for the rest, so a repaint writes a few hundred cells, not
// every cell of the catalog.

// Items top to bottom: a family header row ({family, group}) before each
// named group, then its model rows ({row: position in the flat order,
// group}); y is each item's top in px below the table head.
// metrics: {rowH, famH}
function layout(groups, metrics) {
  var items = [], rowItem = [], y = 0, row = 0;
  groups.forEach(function (g, gi) {
    if (g.family !== null) {
      items.push({ family: g.family, group: gi, y: y, h: metrics.famH });
      y += metrics.famH;
    }
    g.rows.forEach(function () {
      rowItem.push(items.length);
      items.push({ row: row++, group: gi, y: y, h: metrics.rowH });
      y += metrics.rowH;
    });
  });
  return { items: items, rowItem: rowItem, height: y };
}

// First item whose bottom is below y (binary search over the tops).
function itemAt(items, y) {
  var lo = 0, hi = items.length - 1;
  if (hi < 0) return 0;
  while (lo < hi) {
    var mid = (lo + hi) >> 1;
    if (items[mid].y + items[mid].h <= y) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// The items and columns in view, widened by `over` ({rows, cols}).
// view: {top, height, left, width} of the scroll box; metrics: {topH
// (caption and head above the first row), leftW (the sticky name and size
// columns), cellW}. Returns item range [i0, i1) and column range [c0, c1).
function visible(lay, colCount, view, metrics, over) {
  var o = over || { rows: 0, cols: 0 };
  var n = lay.items.length;
  // A scroll position past the end (the matrix just got smaller; the
  // browser clamps it only at the next layout) counts as the end.
  var cellsW = Math.max(0, view.width - metrics.leftW);
  var scrollTop = Math.min(view.top, Math.max(0, metrics.topH + lay.height - view.height));
  var scrollLeft = Math.min(view.left, Math.max(0, colCount * metrics.cellW - cellsW));
  var top = scrollTop - metrics.topH, bottom = scrollTop + view.height - metrics.topH;
  var i0 = itemAt(lay.items, Math.max(0, top)), i1 = itemAt(lay.items, Math.max(0, bottom)) + 1;
  var c0 = Math.floor(scrollLeft / metrics.cellW), c1 = Math.ceil((scrollLeft + cellsW) / metrics.cellW);
  return {
    i0: clamp(i0 - o.rows, 0, n), i1: clamp(i1 + o.rows, 0, n),
    c0: clamp(c0 - o.cols, 0, colCount), c1: clamp(c1 + o.cols, 0, colCount)
  };
}

function clamp(v, lo, hi) { return Math.max(lo, Math.min(hi, v)); }

// Whether `inner` lies within `outer` with `margin` ({rows, cols}) to
// spare on each side that does not already reach the edge of the matrix.
function covers(outer, inner, margin, itemCount, colCount) {
  return (inner.i0 - outer.i0 >= margin.rows || outer.i0 === 0) &&
    (outer.i1 - inner.i1 >= margin.rows || outer.i1 === itemCount) &&
    (inner.c0 - outer.c0 >= margin.cols || outer.c0 === 0) &&
    (outer.c1 - inner.c1 >= margin.cols || outer.c1 === colCount);
}

// The scroll position (nearest to the current one) that shows row item
// `item` and column `col` whole, below the sticky head and right of the
// sticky name columns. headH: the sticky head's height.
function scrollToShow(lay, item, col, view, metrics, headH) {
  var it = lay.items[item];
  var top = view.top, left = view.left;
  if (it) {
    var rowTop = metrics.topH + it.y, rowBottom = rowTop + it.h;
    if (rowTop - headH < top) top = rowTop - headH;
    else if (rowBottom > top + view.height) top = rowBottom - view.height;
  }
  if (col >= 0) {
    var x0 = col * metrics.cellW, x1 = x0 + metrics.cellW, cellsW = Math.max(metrics.cellW, view.width - metrics.leftW);
    if (x0 < left) left = x0;
    else if (x1 > left + cellsW) left = x1 - cellsW;
  }
  return { top: Math.max(0, top), left: Math.max(0, left) };
}

export { layout, visible, covers, scrollToShow };
