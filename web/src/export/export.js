// Exports and copying, all local: files are Blobs behind a download link
// (no network), the chart is serialised SVG or drawn to a canvas for PNG.
import * as i18n from '../i18n/i18n.js';
import * as format from '../format/format.js';
import { currencyOf } from '../state/defaults.js';
import { toMatrixRequest } from '../state/requests.js';

var CSV_COLUMNS = ['gpu_count', 'gpus_needed', 'status', 'strategy', 'nodes', 'needs_nvlink', 'total_gib', 'decode_tokens_per_s',
  'prefill_tokens_per_s', 'train_tokens_per_s', 'train_hours', 'usd_per_hour', 'usd_per_million_tokens', 'cost_usd', 'users_at_slo', 'users_at_slo_low'];

// A CSV field: quoted when needed; text that a spreadsheet would run as a
// formula (= + - @ at the start) gets a leading apostrophe.
function csvField(v) {
  if (v == null) return '';
  var s = String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = "'" + s;
  return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

// A money column in the currency in force: usd_per_hour → cny_per_hour,
// the figure converted at the engine's rate (format.moneyField).
function currencyColumn(key, currency) { return currency === 'cny' ? key.replace(/usd/, 'cny') : key; }
function columnValue(cell, key, currency, cnyPerUsd) {
  if (currency !== 'cny' || !/usd/.test(key)) return cell[key];
  var m = format.moneyField(cell, key, 'cny', cnyPerUsd);
  return m.currency === 'cny' && m.value != null ? Math.round(m.value * 10000) / 10000 : null;
}

// One line per model × GPU, with the engine's figures as numbers; the money
// columns in the currency in force (cny: where the engine's rate is known).
function matrixToCsv(matrix, currency, cnyPerUsd) {
  var cur = currency === 'cny' && typeof cnyPerUsd === 'number' ? 'cny' : 'usd';
  var lines = [['model_id', 'model_name', 'family', 'params_b', 'gpu_id', 'gpu_name', 'gpu_group', 'memory_gib']
    .concat(CSV_COLUMNS.map(function (k) { return currencyColumn(k, cur); })).join(',')];
  matrix.models.forEach(function (m, i) {
    matrix.gpus.forEach(function (g, j) {
      var cell = matrix.cells[i][j] || {};
      var row = [m.id, m.name, m.family, m.params_b, g.id, g.name, g.group, g.memory_gib]
        .concat(CSV_COLUMNS.map(function (k) { return columnValue(cell, k, cur, cnyPerUsd); }));
      lines.push(row.map(csvField).join(','));
    });
  });
  return lines.join('\r\n') + '\r\n';
}

function download(filename, mime, content) {
  var blob = content instanceof Blob ? content : new Blob([content], { type: mime });
  var url = URL.createObjectURL(blob);
  var a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
}

function stamp(state) { return 'caliper-' + state.task + '-' + state.ctx; }

function matrixCsv(matrix, state, cnyPerUsd) {
  var csv = matrixToCsv(matrix, currencyOf(state, i18n.lang()), cnyPerUsd);
  download(stamp(state) + '.csv', 'text/csv;charset=utf-8', '\ufeff' + csv);
}

// request: the engine request the matrix came from (the page's own, with
// its GPU selection), else the one the state gives.
function matrixJson(matrix, state, request) {
  var out = { request: request || toMatrixRequest(state), result: matrix };
  download(stamp(state) + '.json', 'application/json', JSON.stringify(out, null, 2));
}

// A standalone copy of the chart: explicit colours, since the page's CSS
// (text colour, dark theme) does not travel with the file.
function standaloneSvg(svg) {
  var copy = svg.cloneNode(true);
  copy.setAttribute('color', '#17202b');
  var bg = document.createElementNS('http://www.w3.org/2000/svg', 'rect');
  bg.setAttribute('width', '100%');
  bg.setAttribute('height', '100%');
  bg.setAttribute('fill', '#ffffff');
  copy.insertBefore(bg, copy.firstChild);
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(copy);
}

function svg(svgEl, name) {
  download(name + '.svg', 'image/svg+xml', standaloneSvg(svgEl));
}

function png(svgEl, name) {
  var text = standaloneSvg(svgEl);
  var url = URL.createObjectURL(new Blob([text], { type: 'image/svg+xml' }));
  var img = new Image();
  img.onload = function () {
    var scale = 2, w = Number(svgEl.getAttribute('width')), h = Number(svgEl.getAttribute('height'));
    var canvas = document.createElement('canvas');
    canvas.width = w * scale;
    canvas.height = h * scale;
    var g = canvas.getContext('2d');
    g.scale(scale, scale);
    g.drawImage(img, 0, 0, w, h);
    URL.revokeObjectURL(url);
    canvas.toBlob(function (blob) { if (blob) download(name + '.png', 'image/png', blob); }, 'image/png');
  };
  img.src = url;
}

function escapeAttr(s) {
  return String(s).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function embedSnippet(url, title) {
  return '<iframe src="' + escapeAttr(url) + '" title="' + escapeAttr(title) +
    '" width="100%" height="640" style="border:0" loading="lazy"></iframe>';
}

// Clipboard when allowed; otherwise the text is shown selected for copying.
function copy(text) {
  var box = document.getElementById('copy-box');
  box.value = text;
  var done = function () { setStatusSafe(i18n.t('status.copied')); };
  var fallback = function () {
    box.hidden = false;
    box.focus();
    box.select();
    var ok = false;
    try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
    setStatusSafe(i18n.t(ok ? 'status.copied' : 'status.copyFailed'));
  };
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(text).then(function () { box.hidden = false; done(); }, fallback);
  } else {
    fallback();
  }
}

function setStatusSafe(text) {
  var s = document.getElementById('status');
  if (s) { s.textContent = text; s.classList.remove('error'); }
}

export { csvField, matrixToCsv, download, matrixCsv, matrixJson, svg, png, embedSnippet, copy, escapeAttr };
