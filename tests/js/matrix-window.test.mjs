// Which rows and columns of the matrix are in view (web/src/matrix/window.js):
// positions from row heights, the window for a scroll position, when the
// window must move, and the scroll that shows a cell. The sizes are the
// style sheet's (35 px rows, 31 px family rows, 62 px columns).
import test from 'node:test';
import assert from 'node:assert/strict';
import * as W from '../../web/src/matrix/window.js';

const SIZES = { rowH: 35, famH: 31, topH: 150, headH: 120, cellW: 62, leftW: 248 };
// Two families of 3 and 2 models, then a flat list (sorted by size).
const GROUPS = [{ family: 'Llama', rows: [4, 0, 2] }, { family: 'Qwen', rows: [1, 3] }];

test('layout: a family header before its rows; tops add up the heights', () => {
  const lay = W.layout(GROUPS, SIZES);
  assert.deepEqual(lay.items.map((i) => (i.row === undefined ? 'fam:' + i.family : i.row)), ['fam:Llama', 0, 1, 2, 'fam:Qwen', 3, 4]);
  assert.deepEqual(lay.items.map((i) => i.y), [0, 31, 66, 101, 136, 167, 202]);
  assert.deepEqual(lay.rowItem, [1, 2, 3, 5, 6]);
  assert.equal(lay.height, 2 * 31 + 5 * 35);
  const flat = W.layout([{ family: null, rows: [0, 1, 2] }], SIZES);
  assert.deepEqual(flat.items.map((i) => i.y), [0, 35, 70]);
});

test('visible: the items and columns the scroll box shows, widened by the margin', () => {
  const rows = Array.from({ length: 100 }, (_, i) => i);
  const lay = W.layout([{ family: null, rows }], SIZES);
  // A 700 px high box at the top: 150 px of caption and head, then rows
  // 0..15 (550 px / 35 px = 15.7 rows).
  const box = { top: 0, height: 700, left: 0, width: 1000 };
  let v = W.visible(lay, 127, box, SIZES, { rows: 0, cols: 0 });
  assert.deepEqual([v.i0, v.i1], [0, 16]);
  // 1000 px wide less 248 px of names: 752 px / 62 px = 12.1 columns.
  assert.deepEqual([v.c0, v.c1], [0, 13]);
  // Scrolled 1000 px down and 620 px right: rows (1000 - 150) / 35 = 24.3 to
  // (1700 - 150) / 35 = 44.3, columns 620 / 62 = 10 to (620 + 752) / 62 = 22.1.
  v = W.visible(lay, 127, { top: 1000, height: 700, left: 620, width: 1000 }, SIZES, { rows: 0, cols: 0 });
  assert.deepEqual([v.i0, v.i1], [24, 45]);
  assert.deepEqual([v.c0, v.c1], [10, 23]);
  // The margin widens it, never past either end.
  v = W.visible(lay, 127, { top: 1000, height: 700, left: 620, width: 1000 }, SIZES, { rows: 10, cols: 6 });
  assert.deepEqual([v.i0, v.i1, v.c0, v.c1], [14, 55, 4, 29]);
  // Scrolled past the end (the matrix just shrank): the view at the end,
  // rows from (3500 + 150 - 700 - 150) / 35 = 80, columns from
  // (20 × 62 - 752) / 62 = 7.9.
  v = W.visible(lay, 20, { top: 1e6, height: 700, left: 1e6, width: 1000 }, SIZES, { rows: 10, cols: 6 });
  assert.deepEqual([v.i0, v.i1, v.c0, v.c1], [70, 100, 1, 20]);
});

test('covers: the window moves only when the view comes near its edge', () => {
  const written = { i0: 10, i1: 50, c0: 4, c1: 30 };
  const margin = { rows: 4, cols: 2 };
  assert.ok(W.covers(written, { i0: 20, i1: 40, c0: 10, c1: 20 }, margin, 100, 127));
  assert.ok(!W.covers(written, { i0: 12, i1: 32, c0: 10, c1: 20 }, margin, 100, 127), 'three rows from the top edge');
  assert.ok(!W.covers(written, { i0: 20, i1: 40, c0: 10, c1: 29 }, margin, 100, 127), 'one column from the right edge');
  assert.ok(W.covers({ i0: 0, i1: 100, c0: 0, c1: 127 }, { i0: 0, i1: 16, c0: 0, c1: 12 }, margin, 100, 127), 'the matrix edge itself');
});

test('scrollToShow: the least scroll that shows the cell whole below the head', () => {
  const rows = Array.from({ length: 100 }, (_, i) => i);
  const lay = W.layout([{ family: null, rows }], SIZES);
  const box = { top: 0, height: 700, left: 0, width: 1000 };
  // Row 0 and column 0 are in view: no scroll.
  assert.deepEqual(W.scrollToShow(lay, 0, 0, box, SIZES, SIZES.headH), { top: 0, left: 0 });
  // Row 50 ends at 150 + 51 × 35 = 1935 px: scrolled so it ends at the box's bottom.
  assert.deepEqual(W.scrollToShow(lay, 50, 0, box, SIZES, SIZES.headH), { top: 1935 - 700, left: 0 });
  // Scrolling up to row 10 (top at 150 + 350 = 500): it shows just below the 120 px sticky head.
  assert.deepEqual(W.scrollToShow(lay, 10, 0, { top: 2000, height: 700, left: 0, width: 1000 }, SIZES, SIZES.headH), { top: 380, left: 0 });
  // Column 20 ends at 21 × 62 = 1302 px of cells; 752 px of them show.
  assert.deepEqual(W.scrollToShow(lay, 0, 20, box, SIZES, SIZES.headH), { top: 0, left: 1302 - 752 });
});
