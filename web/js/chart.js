// The memory chart: one stacked horizontal bar (inline SVG) of what fills a
// GPU, against the card's capacity and its usable memory. Values come from
// the engine's result; this file only places them.
(function (root) {
  var C = root.Caliper = root.Caliper || {};
  var NS = 'http://www.w3.org/2000/svg';
  var PARTS = [
    ['weights_gib', 'weights', '#3b82f6'], ['kv_cache_gib', 'kv_cache', '#14b8a6'],
    ['activations_gib', 'activations', '#f59e0b'], ['gradients_gib', 'gradients', '#ef4444'],
    ['optimizer_gib', 'optimizer', '#8b5cf6'], ['adapter_gib', 'adapter', '#ec4899'],
    ['overhead_gib', 'overhead', '#94a3b8']];
  var PAD = 12, BAR_Y = 44, BAR_H = 34;
  var W = 720;  // set per chart: 720 in the detail, narrower in comparisons

  function node(tag, attrs, text) {
    var n = document.createElementNS(NS, tag);
    Object.keys(attrs || {}).forEach(function (k) { n.setAttribute(k, attrs[k]); });
    if (text != null) n.textContent = text;
    return n;
  }

  // A tick step of 1, 2 or 5 × 10^k giving about five ticks.
  function tickStep(max) {
    var raw = max / 5, p = Math.pow(10, Math.floor(Math.log10(raw || 1)));
    var m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }

  // opts: {t, locale, title, id, width}
  function memoryChart(result, opts) {
    W = opts.width || 720;
    var legendCols = W >= 600 ? 3 : 2;
    var mem = result.memory || {};
    var capacity = result.gpu && result.gpu.memory_gib;
    var usable = result.usable_memory_gib;
    var total = mem.total_gib || 0;
    var maxV = Math.max(total, capacity || 0) * (W < 600 ? 1.4 : 1.22) || 1;  // room for the capacity label
    var scale = function (v) { return PAD + (W - 2 * PAD) * v / maxV; };
    var parts = PARTS.filter(function (p) { return mem[p[0]] > 0; });
    var legendRows = Math.ceil((parts.length + 1) / legendCols);
    var H = BAR_Y + BAR_H + 34 + legendRows * 22 + 8;
    var id = opts.id || 'mem-chart';
    var svg = node('svg', { xmlns: NS, viewBox: '0 0 ' + W + ' ' + H, width: W, height: H, class: 'chart',
      role: 'img', 'aria-labelledby': id + '-title', 'font-family': 'system-ui, sans-serif', 'font-size': '12' });
    svg.appendChild(node('title', { id: id + '-title' }, opts.title));
    svg.appendChild(node('text', { x: PAD, y: 16, 'font-weight': '700', 'font-size': '13', fill: 'currentColor' }, opts.title));

    var x = PAD;
    parts.forEach(function (p) {
      var w = scale(mem[p[0]]) - PAD;
      var rect = node('rect', { x: x, y: BAR_Y, width: Math.max(w, 0.5), height: BAR_H, fill: p[2] });
      rect.appendChild(node('title', null, opts.t('mem.' + p[1]) + ': ' + C.format.gib(opts.locale, mem[p[0]])));
      svg.appendChild(rect);
      if (w > 44) {
        svg.appendChild(node('text', { x: x + w / 2, y: BAR_Y + BAR_H / 2 + 4, 'text-anchor': 'middle', fill: '#ffffff',
          'font-size': '11', 'font-weight': '600' }, C.format.number(opts.locale, mem[p[0]], 1)));
      }
      x += w;
    });
    axis(svg, maxV, scale, opts);
    if (usable > 0 && capacity && usable < capacity) marker(svg, scale(usable), opts.t('detail.usable') + ' ' + C.format.gib(opts.locale, usable), true);
    if (capacity) marker(svg, scale(capacity), opts.t('detail.capacity') + ' ' + C.format.gib(opts.locale, capacity), false);
    legend(svg, parts, mem, opts, BAR_Y + BAR_H + 40, legendCols);
    return svg;
  }

  // Capacity: solid, label to its right; usable: dashed, label to its left.
  function marker(svg, x, label, dashed) {
    var line = { x1: x, x2: x, y1: BAR_Y - 4, y2: BAR_Y + BAR_H + 6, stroke: 'currentColor', 'stroke-width': dashed ? 1.5 : 2.5 };
    if (dashed) line['stroke-dasharray'] = '4 3';
    svg.appendChild(node('line', line));
    svg.appendChild(node('text', { x: dashed ? x - 4 : x + 4, y: BAR_Y - 8, 'text-anchor': dashed ? 'end' : 'start',
      fill: 'currentColor', 'font-size': '11' }, label));
  }

  function axis(svg, maxV, scale, opts) {
    var step = tickStep(maxV), y = BAR_Y + BAR_H + 6;
    svg.appendChild(node('line', { x1: PAD, x2: W - PAD, y1: y, y2: y, stroke: 'currentColor', 'stroke-opacity': '0.3' }));
    for (var v = 0; v <= maxV + 1e-9; v += step) {
      var x = scale(v);
      svg.appendChild(node('line', { x1: x, x2: x, y1: y, y2: y + 4, stroke: 'currentColor', 'stroke-opacity': '0.5' }));
      svg.appendChild(node('text', { x: x, y: y + 16, 'text-anchor': 'middle', fill: 'currentColor', 'fill-opacity': '0.75',
        'font-size': '10' }, C.format.number(opts.locale, v, step < 1 ? 1 : 0)));
    }
    svg.appendChild(node('text', { x: W - PAD, y: y + 16, 'text-anchor': 'end', fill: 'currentColor', 'fill-opacity': '0.75', 'font-size': '10' }, 'GiB'));
  }

  function legend(svg, parts, mem, opts, top, cols) {
    var colW = (W - 2 * PAD) / cols;
    var items = parts.map(function (p) { return [opts.t('mem.' + p[1]), mem[p[0]], p[2]]; });
    items.push([opts.t('detail.total'), mem.total_gib, null]);
    items.forEach(function (item, i) {
      var x = PAD + (i % cols) * colW, y = top + Math.floor(i / cols) * 22;
      if (item[2]) svg.appendChild(node('rect', { x: x, y: y - 10, width: 12, height: 12, rx: 2, fill: item[2] }));
      svg.appendChild(node('text', { x: x + (item[2] ? 18 : 0), y: y, fill: 'currentColor', 'font-weight': item[2] ? '400' : '700' },
        item[0] + '  ' + C.format.gib(opts.locale, item[1])));
    });
  }

  C.chart = { memoryChart: memoryChart, PARTS: PARTS, tickStep: tickStep };
})(typeof window !== 'undefined' ? window : globalThis);
