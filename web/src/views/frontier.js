// The throughput/interactivity frontier of a serving deployment (the serve
// answer's `curve`): output tokens/s per GPU against tokens/s per user, one
// point per concurrency, with the SLO drawn on it. The engine gives every
// point; this file only places them. geometry() is pure (Node tests);
// frontierChart() draws it as SVG, each point reachable by hover and focus.
import * as format from '../format/format.js';
import { textWidth, tickStep, wrapText } from './chart.js';

var NS = 'http://www.w3.org/2000/svg';
var PAD_L = 58, PAD_R = 16, PAD_T_1 = 34, PAD_B = 44;
var MIN_W = 300, MAX_W = 760, TITLE_SIZE = 13, TITLE_LINE_H = 16, LABEL_SIZE = 11;

// The per-user speed the SLO asks for: min_user_tokens_per_s, or the rate
// a TPOT limit allows (1000 / tpot_ms), whichever is stricter; null if none.
function sloUserTokensPerS(slo) {
  if (!slo) return null;
  var a = typeof slo.min_user_tokens_per_s === 'number' ? slo.min_user_tokens_per_s : null;
  var b = typeof slo.tpot_ms === 'number' && slo.tpot_ms > 0 ? 1000 / slo.tpot_ms : null;
  if (a == null) return b;
  return b == null ? a : Math.max(a, b);
}

// Whether a curve point meets the SLO by the engine's own figures.
function meets(p, slo) {
  var need = sloUserTokensPerS(slo);
  if (need != null && !(p.user_tokens_per_s >= need)) return false;
  if (slo && typeof slo.ttft_s === 'number' && !(p.ttft_s <= slo.ttft_s)) return false;
  return true;
}

// Points, scales and ticks for a chart `width` × `height` pixels; a title
// of `titleLines` lines (1 by default) moves the plot down by the extra ones.
function geometry(curve, slo, width, height, titleLines) {
  var W = Math.max(MIN_W, Math.min(MAX_W, Math.floor(width || MAX_W)));
  var extra = Math.max(0, (titleLines || 1) - 1) * TITLE_LINE_H;
  var H = (height || Math.round(W * 0.55)) + extra, PAD_T = PAD_T_1 + extra;
  var pts = (curve || []).filter(function (p) {
    return format.isNum(p.user_tokens_per_s) && format.isNum(p.output_tokens_per_s_per_gpu);
  });
  var need = sloUserTokensPerS(slo);
  var maxX = Math.max.apply(null, pts.map(function (p) { return p.user_tokens_per_s; }).concat([need || 0, 1])) * 1.08;
  var maxY = Math.max.apply(null, pts.map(function (p) { return p.output_tokens_per_s_per_gpu; }).concat([1])) * 1.1;
  var sx = function (v) { return PAD_L + (W - PAD_L - PAD_R) * v / maxX; };
  var sy = function (v) { return H - PAD_B - (H - PAD_T - PAD_B) * v / maxY; };
  var xStep = tickStep(maxX), yStep = tickStep(maxY);
  var ticks = function (max, step) { var out = []; for (var v = 0; v <= max + 1e-9; v += step) out.push(v); return out; };
  return {
    W: W, H: H, sx: sx, sy: sy, maxX: maxX, maxY: maxY,
    points: pts.map(function (p) { return { x: sx(p.user_tokens_per_s), y: sy(p.output_tokens_per_s_per_gpu), p: p, meets: meets(p, slo) }; }),
    xTicks: ticks(maxX, xStep), yTicks: ticks(maxY, yStep), sloX: need == null ? null : sx(need), need: need, top: PAD_T
  };
}

// Where the SLO line's label goes: beside the line (on the side with more
// room first), at the highest line of the plot where its box meets no
// point and no stretch of the curve; above the plot where every line
// inside is taken. labelW: the label's width in px. Returns {x, y (the
// text's baseline), anchor, box: {x0, x1, y0, y1}}.
var POINT_CLEAR = 8;  // a point's radius (5) and stroke, and a gap
function sloLabelSpot(g, labelW) {
  var x0 = PAD_L, x1 = g.W - PAD_R, y0 = g.H - PAD_B, y1 = g.top;
  var sides = g.sloX > (x0 + x1) / 2 ? ['end', 'start'] : ['start', 'end'];
  var boxAt = function (anchor, y) {
    var left = anchor === 'end' ? g.sloX - 4 - labelW : g.sloX + 4;
    return { x0: left, x1: left + labelW, y0: y - LABEL_SIZE, y1: y + 3 };
  };
  for (var y = y1 + 12; y <= y0 - 4; y += 6) {
    for (var s = 0; s < sides.length; s++) {
      var box = boxAt(sides[s], y);
      if (box.x0 >= x0 && box.x1 <= x1 && !hitsCurve(g.points, box)) {
        return { x: sides[s] === 'end' ? box.x1 : box.x0, y: y, anchor: sides[s], box: box };
      }
    }
  }
  var above = boxAt(sides[0], y1 - 3);
  return { x: sides[0] === 'end' ? above.x1 : above.x0, y: y1 - 3, anchor: sides[0], box: above };
}

// Whether a box meets a point (with POINT_CLEAR around it) or the line
// between two points (sampled every 2 px).
function hitsCurve(points, box) {
  var near = function (x, y, r) { return x >= box.x0 - r && x <= box.x1 + r && y >= box.y0 - r && y <= box.y1 + r; };
  for (var i = 0; i < points.length; i++) {
    if (near(points[i].x, points[i].y, POINT_CLEAR)) return true;
    if (i === 0) continue;
    var a = points[i - 1], b = points[i], steps = Math.ceil(Math.hypot(b.x - a.x, b.y - a.y) / 2);
    for (var k = 1; k < steps; k++) {
      if (near(a.x + (b.x - a.x) * k / steps, a.y + (b.y - a.y) * k / steps, 2)) return true;
    }
  }
  return false;
}

function node(tag, attrs, text) {
  var n = document.createElementNS(NS, tag);
  Object.keys(attrs || {}).forEach(function (k) { n.setAttribute(k, attrs[k]); });
  if (text != null) n.textContent = text;
  return n;
}

// The text for one point, in the page's words, each figure with its 80%
// band where the point has one (its ranges), as the detail view writes it.
function pointText(p, opts) {
  var L = opts.locale, t = opts.t;
  var num = function (x) { return format.number(L, x); };
  var band = function (key, text) { return format.bandText(format.bandOf(p.ranges, key), text); };
  return t('serve.point', {
    users: format.number(L, p.concurrency, 0), user: num(p.user_tokens_per_s) + ' ' + t('unit.tokPerS') + band('user_tokens_per_s', num),
    gpu: num(p.output_tokens_per_s_per_gpu) + ' ' + t('unit.tokPerS') + band('output_tokens_per_s_per_gpu', num),
    ttft: format.seconds(L, p.ttft_s, opts.units) + band('ttft_s', function (x) { return format.seconds(L, x, opts.units); }),
    tpot: num(p.tpot_ms) + ' ' + t('unit.ms') + band('tpot_ms', num)
  });
}

// opts: {t, locale, units, title, id, width, onPoint(text)}
function frontierChart(curve, slo, opts) {
  var width = Math.max(MIN_W, Math.min(MAX_W, Math.floor(opts.width || MAX_W)));
  var lines = wrapText(opts.title || '', width - 16, TITLE_SIZE);
  var g = geometry(curve, slo, width, null, lines.length);
  var id = opts.id || 'frontier';
  var svg = node('svg', { xmlns: NS, viewBox: '0 0 ' + g.W + ' ' + g.H, width: g.W, height: g.H, class: 'chart frontier',
    role: 'group', 'aria-labelledby': id + '-title', 'font-family': 'system-ui, sans-serif', 'font-size': '11' });
  svg.appendChild(node('title', { id: id + '-title' }, opts.title));
  lines.forEach(function (line, i) {
    svg.appendChild(node('text', { x: 8, y: 16 + i * TITLE_LINE_H, 'font-weight': '700', 'font-size': String(TITLE_SIZE), fill: 'currentColor',
      class: 'chart-title' }, line));
  });
  var x0 = PAD_L, x1 = g.W - PAD_R, y0 = g.H - PAD_B, y1 = g.top;
  g.yTicks.forEach(function (v) {
    var y = g.sy(v);
    svg.appendChild(node('line', { x1: x0, x2: x1, y1: y, y2: y, stroke: 'currentColor', 'stroke-opacity': '0.12' }));
    svg.appendChild(node('text', { x: x0 - 6, y: y + 4, 'text-anchor': 'end', fill: 'currentColor', 'fill-opacity': '0.75' },
      format.compact(opts.locale, v)));
  });
  g.xTicks.forEach(function (v) {
    var x = g.sx(v);
    svg.appendChild(node('line', { x1: x, x2: x, y1: y0, y2: y0 + 4, stroke: 'currentColor', 'stroke-opacity': '0.5' }));
    svg.appendChild(node('text', { x: x, y: y0 + 16, 'text-anchor': 'middle', fill: 'currentColor', 'fill-opacity': '0.75' },
      format.compact(opts.locale, v)));
  });
  svg.appendChild(node('line', { x1: x0, x2: x1, y1: y0, y2: y0, stroke: 'currentColor', 'stroke-opacity': '0.4' }));
  svg.appendChild(node('text', { x: (x0 + x1) / 2, y: g.H - 8, 'text-anchor': 'middle', fill: 'currentColor' }, opts.t('serve.axisUser')));
  svg.appendChild(node('text', { x: 12, y: (y0 + y1) / 2, 'text-anchor': 'middle', fill: 'currentColor',
    transform: 'rotate(-90 12 ' + (y0 + y1) / 2 + ')' }, opts.t('serve.axisGpu')));
  if (g.sloX != null) {
    var slo = node('g', { class: 'slo' });
    slo.appendChild(node('rect', { x: x0, y: y1, width: Math.max(0, g.sloX - x0), height: y0 - y1, fill: '#ef4444', 'fill-opacity': '0.07' }));
    slo.appendChild(node('line', { x1: g.sloX, x2: g.sloX, y1: y1, y2: y0, stroke: '#dc2626', 'stroke-width': '1.5', 'stroke-dasharray': '5 3' }));
    var label = opts.t('serve.sloLine', { n: format.number(opts.locale, g.need) });
    var spot = sloLabelSpot(g, textWidth(label, LABEL_SIZE));
    slo.appendChild(node('text', { x: spot.x, y: spot.y, 'text-anchor': spot.anchor, fill: '#dc2626', class: 'slo-label' }, label));
    svg.appendChild(slo);
  }
  if (g.points.length > 1) {
    svg.appendChild(node('polyline', { points: g.points.map(function (q) { return q.x + ',' + q.y; }).join(' '),
      fill: 'none', stroke: '#2563eb', 'stroke-width': '2' }));
  }
  g.points.forEach(function (q, i) {
    var text = pointText(q.p, opts);
    var dot = node('circle', { cx: q.x, cy: q.y, r: 5, tabindex: '0', role: 'img', 'aria-label': text, class: 'pt',
      fill: q.meets ? '#2563eb' : '#ffffff', stroke: '#2563eb', 'stroke-width': '2', 'data-index': String(i) });
    dot.appendChild(node('title', null, text));
    var show = function () { if (opts.onPoint) opts.onPoint(text, i); };
    dot.addEventListener('mouseenter', show);
    dot.addEventListener('focus', show);
    svg.appendChild(dot);
  });
  return svg;
}

export { geometry, meets, sloUserTokensPerS, sloLabelSpot, frontierChart, pointText };
