// The memory chart: one stacked horizontal bar (inline SVG) of what fills a
// GPU, against the card's capacity and its usable memory. Values come from
// the engine's result; this file only places them. The chart is drawn at
// the width it will be shown at (one SVG unit per CSS pixel), so its text
// keeps its size on a phone: a narrow chart wraps its title, keeps room
// for the capacity label and lists its legend in one column.
import * as format from '../format/format.js';

var NS = 'http://www.w3.org/2000/svg';
var PARTS = [
  ['weights_gib', 'weights', '#3b82f6'], ['kv_cache_gib', 'kv_cache', '#14b8a6'],
  ['activations_gib', 'activations', '#f59e0b'], ['gradients_gib', 'gradients', '#ef4444'],
  ['optimizer_gib', 'optimizer', '#8b5cf6'], ['adapter_gib', 'adapter', '#ec4899'],
  ['overhead_gib', 'overhead', '#94a3b8']];
var PAD = 12, BAR_H = 34, TITLE_SIZE = 13, LABEL_SIZE = 11, LINE_H = 18, LEGEND_ROW = 22;
var MIN_W = 280, MAX_W = 720;
// Average glyph width of the system sans-serif per pixel of font size (to
// keep labels inside the chart; generous for digits and capitals).
var GLYPH_EM = 0.6;

function node(tag, attrs, text) {
  var n = document.createElementNS(NS, tag);
  Object.keys(attrs || {}).forEach(function (k) { n.setAttribute(k, attrs[k]); });
  if (text != null) n.textContent = text;
  return n;
}

// Chinese characters and full-width punctuation take a whole em.
function textWidth(text, size) {
  var s = String(text), wide = (s.match(/[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]/g) || []).length;
  return ((s.length - wide) * GLYPH_EM + wide) * size;
}

// A tick step of 1, 2 or 5 × 10^k giving about five ticks.
function tickStep(max) {
  var raw = max / 5, p = Math.pow(10, Math.floor(Math.log10(raw || 1)));
  var m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

// Words into lines that fit `width` pixels at `size`.
function wrapText(text, width, size) {
  var words = String(text).split(' '), lines = [], line = '';
  words.forEach(function (w) {
    var next = line ? line + ' ' + w : w;
    if (line && textWidth(next, size) > width) { lines.push(line); line = w; } else line = next;
  });
  if (line) lines.push(line);
  return lines;
}

// The width to draw at: what the detail dialog holds at this window size.
function fitWidth(available) {
  return Math.max(MIN_W, Math.min(MAX_W, Math.floor(available)));
}

// opts: {t, locale, title, id, width}
function memoryChart(result, opts) {
  var W = fitWidth(opts.width || MAX_W);
  var mem = result.memory || {};
  var capacity = result.gpu && result.gpu.memory_gib;
  var usable = result.usable_memory_gib;
  var total = mem.total_gib || 0;
  var capLabel = capacity ? opts.t('detail.capacity') + ' ' + format.gib(opts.locale, capacity) : '';
  // The scale leaves room right of the capacity line for its label.
  var inner = W - 2 * PAD, labelRoom = textWidth(capLabel, LABEL_SIZE) + 8;
  var maxV = Math.max(total * 1.05, capacity ? capacity * inner / Math.max(inner - labelRoom, inner * 0.4) : 0) || 1;
  var g = { W: W, scale: function (v) { return PAD + inner * v / maxV; } };
  var titleLines = wrapText(opts.title, inner, TITLE_SIZE);
  g.barY = 20 + titleLines.length * LINE_H + LINE_H;
  var parts = PARTS.filter(function (p) { return mem[p[0]] > 0; });
  var legendCols = W >= 600 ? 3 : W >= 420 ? 2 : 1;
  var legendRows = Math.ceil((parts.length + 1) / legendCols);
  var H = g.barY + BAR_H + 34 + legendRows * LEGEND_ROW + 8;
  var id = opts.id || 'mem-chart';
  var svg = node('svg', { xmlns: NS, viewBox: '0 0 ' + W + ' ' + H, width: W, height: H, class: 'chart',
    role: 'img', 'aria-labelledby': id + '-title', 'font-family': 'system-ui, sans-serif', 'font-size': '12' });
  svg.appendChild(node('title', { id: id + '-title' }, opts.title));
  titleLines.forEach(function (line, i) {
    svg.appendChild(node('text', { x: PAD, y: 16 + i * LINE_H, 'font-weight': '700', 'font-size': String(TITLE_SIZE), fill: 'currentColor' }, line));
  });
  bar(svg, g, parts, mem, opts);
  axis(svg, g, maxV, opts);
  if (usable > 0 && capacity && usable < capacity) marker(svg, g, g.scale(usable), opts.t('detail.usable') + ' ' + format.gib(opts.locale, usable), true);
  if (capacity) marker(svg, g, g.scale(capacity), capLabel, false);
  legend(svg, g, parts, mem, opts, g.barY + BAR_H + 40, legendCols);
  return svg;
}

function bar(svg, g, parts, mem, opts) {
  var x = PAD;
  parts.forEach(function (p) {
    var w = g.scale(mem[p[0]]) - PAD;
    var rect = node('rect', { x: x, y: g.barY, width: Math.max(w, 0.5), height: BAR_H, fill: p[2] });
    rect.appendChild(node('title', null, opts.t('mem.' + p[1]) + opts.t('list.colon') + format.gib(opts.locale, mem[p[0]])));
    svg.appendChild(rect);
    var label = format.number(opts.locale, mem[p[0]], 1);
    if (w > textWidth(label, LABEL_SIZE) + 10) {
      svg.appendChild(node('text', { x: x + w / 2, y: g.barY + BAR_H / 2 + 4, 'text-anchor': 'middle', fill: '#ffffff',
        'font-size': String(LABEL_SIZE), 'font-weight': '600' }, label));
    }
    x += w;
  });
}

// Capacity: solid, label to its right; usable: dashed, label to its left.
function marker(svg, g, x, label, dashed) {
  var line = { x1: x, x2: x, y1: g.barY - 4, y2: g.barY + BAR_H + 6, stroke: 'currentColor', 'stroke-width': dashed ? 1.5 : 2.5 };
  if (dashed) line['stroke-dasharray'] = '4 3';
  svg.appendChild(node('line', line));
  svg.appendChild(node('text', { x: dashed ? x - 4 : x + 4, y: g.barY - 8, 'text-anchor': dashed ? 'end' : 'start',
    fill: 'currentColor', 'font-size': String(LABEL_SIZE) }, label));
}

function axis(svg, g, maxV, opts) {
  var step = tickStep(maxV), y = g.barY + BAR_H + 6;
  svg.appendChild(node('line', { x1: PAD, x2: g.W - PAD, y1: y, y2: y, stroke: 'currentColor', 'stroke-opacity': '0.3' }));
  // The last tick gives way to the unit at the right end.
  for (var v = 0; v <= maxV + 1e-9; v += step) {
    var x = g.scale(v);
    if (x > g.W - PAD - 28) break;
    svg.appendChild(node('line', { x1: x, x2: x, y1: y, y2: y + 4, stroke: 'currentColor', 'stroke-opacity': '0.5' }));
    svg.appendChild(node('text', { x: x, y: y + 16, 'text-anchor': 'middle', fill: 'currentColor', 'fill-opacity': '0.75',
      'font-size': '10' }, format.number(opts.locale, v, step < 1 ? 1 : 0)));
  }
  svg.appendChild(node('text', { x: g.W - PAD, y: y + 16, 'text-anchor': 'end', fill: 'currentColor', 'fill-opacity': '0.75', 'font-size': '10' }, 'GiB'));
}

function legend(svg, g, parts, mem, opts, top, cols) {
  var colW = (g.W - 2 * PAD) / cols;
  var items = parts.map(function (p) { return [opts.t('mem.' + p[1]), mem[p[0]], p[2]]; });
  items.push([opts.t('detail.total'), mem.total_gib, null]);
  items.forEach(function (item, i) {
    var x = PAD + (i % cols) * colW, y = top + Math.floor(i / cols) * LEGEND_ROW;
    if (item[2]) svg.appendChild(node('rect', { x: x, y: y - 10, width: 12, height: 12, rx: 2, fill: item[2] }));
    svg.appendChild(node('text', { x: x + (item[2] ? 18 : 0), y: y, fill: 'currentColor', 'font-weight': item[2] ? '400' : '700' },
      item[0] + '  ' + format.gib(opts.locale, item[1])));
  });
}

export { memoryChart, PARTS, tickStep, wrapText, fitWidth, textWidth };
