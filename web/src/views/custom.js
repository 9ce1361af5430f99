// The user's own model (a Hugging Face config.json or just a size), GPU (its
// datasheet figures) and catalog files. Each is checked by the engine before
// use; a rejection shows the engine's message and JSON pointer beside the
// field, and the typed text stays where it is.
import * as customRows from '../state/custom-rows.js';
import * as dom from '../dom/dom.js';
import * as engine from '../engine/engine.js';
import * as exporter from '../export/export.js';
import * as format from '../format/format.js';
import { parseJsonLenient } from '../format/json-text.js';
import * as i18n from '../i18n/i18n.js';
import { toEstimateRequest } from '../state/requests.js';
import { currencyOf } from '../state/defaults.js';

var $ = dom.$, el = dom.el;
var ctx = null;
// [key, required, kind]; names are labels from the dictionary (gpu.<key>).
// The two 'money' fields are typed in the currency in force.
var GPU_FIELDS = [['name', true, 'text'], ['memory_gib', true, 'num'], ['bandwidth_gbps', true, 'num'],
  ['bf16_tflops', true, 'num'], ['fp8_tflops', false, 'num'], ['tdp_w', false, 'num'], ['price_usd', false, 'money'],
  ['cloud_usd_per_hour', false, 'money'], ['nvlink_gbps', false, 'num'], ['class', false, 'class']];

function init(options) {
  ctx = options;
  $('#custom-model').addEventListener('submit', function (e) { e.preventDefault(); useModel(); });
  $('#custom-gpu').addEventListener('submit', function (e) { e.preventDefault(); useGpu(); });
  $('#catalog-form').addEventListener('submit', function (e) { e.preventDefault(); loadCatalogFiles(); });
  $('#cm-remove').addEventListener('click', function () { ctx.change({ cm: null, rm: '' }); });
  $('#cg-remove').addEventListener('click', function () { ctx.change({ cg: null }); });
  $('#cat-export').addEventListener('click', exportCatalog);
  $('#cat-reset').addEventListener('click', function () {
    ctx.loadBuiltInCatalog().then(catalogLoaded, function (e) { $('#cat-message').textContent = i18n.errorText(e); });
  });
  $('#cm-file').addEventListener('change', function (e) { readInto(e.target.files[0], $('#cm-config')); });
  bindDrop($('#cm-drop'), $('#cm-config'));
  bindDrop($('#cm-config'), $('#cm-config'));
}

function bindDrop(zone, target) {
  zone.addEventListener('dragover', function (e) { e.preventDefault(); zone.classList.add('over'); });
  zone.addEventListener('dragleave', function () { zone.classList.remove('over'); });
  zone.addEventListener('drop', function (e) {
    e.preventDefault();
    zone.classList.remove('over');
    if (e.dataTransfer.files.length) readInto(e.dataTransfer.files[0], target);
  });
}

function readFile(file) {
  return new Promise(function (resolve, reject) {
    var reader = new FileReader();
    reader.onload = function () { resolve(String(reader.result)); };
    reader.onerror = function () { reject(reader.error); };
    reader.readAsText(file);
  });
}

function readInto(file, textarea) {
  if (!file) return;
  readFile(file).then(function (text) {
    textarea.value = text;
    dom.fieldError(textarea, null);
  });
}

function parseJsonField(field) {
  try { return { value: parseJsonLenient(field.value) }; } catch (e) {
    var at = jsonErrorAt(field.value, e.message);
    // The browser's own message (English whatever the page's language) is the detail.
    dom.fieldError(field, at ? ctx.t('custom.badJsonAt', at) : ctx.t('custom.badJson'), e.message);
    return null;
  }
}

// Where JSON.parse stopped, from its message: "(line 3 column 5)" or
// "at position 17"; null when the message says neither.
function jsonErrorAt(text, message) {
  var m = /line (\d+) column (\d+)/.exec(message);
  if (m) return { line: Number(m[1]), col: Number(m[2]) };
  m = /position (\d+)/.exec(message);
  if (!m) return null;
  var before = String(text).slice(0, Number(m[1]));
  var lines = before.split('\n');
  return { line: lines.length, col: lines[lines.length - 1].length + 1 };
}

// A probe estimate on a catalog GPU (or model) so the engine checks the object.
function probe(model, gpu) {
  var s = ctx.app.state;
  return engine.estimate(toEstimateRequest(s, model, gpu, 'auto'));
}

function engineFieldError(e, fieldsByPath, fallback) {
  var path = e.path || '';
  var field = fallback;
  Object.keys(fieldsByPath).forEach(function (p) { if (path === p || path.indexOf(p + '/') === 0) field = fieldsByPath[p]; });
  dom.fieldError(field, ctx.t('custom.errorAt', { message: i18n.errorText(e), path: path || '/' }), i18n.errorDetail(e));
}

function useModel() {
  var config = $('#cm-config'), params = $('#cm-params'), name = $('#cm-name');
  [config, params].forEach(function (f) { dom.fieldError(f, null); });
  var model;
  if (config.value.trim()) {
    var parsed = parseJsonField(config);
    if (!parsed) return;
    model = parsed.value;
  } else if (params.value.trim()) {
    var b = format.parseInput(params.value);
    if (!(b > 0)) { dom.fieldError(params, ctx.t('error.number')); return; }
    model = { params_b: b };
    if (name.value.trim()) model.name = name.value.trim();
  } else {
    dom.fieldError(params, ctx.t('custom.needSize'));
    return;
  }
  var gpu = ctx.app.gpus.length ? ctx.app.gpus[0].id : 'h100';
  try {
    var r = probe(model, gpu);
    var label = name.value.trim() || r.model.name || (model._name_or_path || model.model_type || 'custom');
    var cm = { name: String(label).slice(0, 80), params_b: r.model.params_b, model: model };
    // What the engine assumed to read it travels with the model, so the
    // matrix row can say so beside the name.
    var warn = customRows.readingWarnings(r).map(function (w) { return { code: w.code, message: String(w.message).slice(0, 600) }; });
    if (warn.length) cm.warn = warn;
    ctx.change({ cm: cm });
  } catch (e) {
    engineFieldError(e, { '/model/params_b': params }, config.value.trim() ? config : params);
  }
}

function gpuFromForm() {
  var gpu = { id: customRows.GPU_ID }, bad = false;
  GPU_FIELDS.forEach(function (f) {
    var input = $('#cg-' + f[0]);
    dom.fieldError(input, null);
    var text = input.value.trim();
    if (!text) {
      if (f[1]) { dom.fieldError(input, ctx.t('custom.required')); bad = true; }
      return;
    }
    if (f[2] === 'num' || f[2] === 'money') {
      var v = format.parseInput(text);
      if (!(v >= 0)) { dom.fieldError(input, ctx.t('error.number')); bad = true; return; }
      if (f[2] === 'money' && currency() === 'cny') putYuan(gpu, f[0], v);
      else gpu[f[0]] = v;
    } else {
      gpu[f[0]] = text;
    }
  });
  if (gpu.bf16_tflops != null) gpu.fp16_tflops = gpu.bf16_tflops;
  if (gpu.fp8_tflops != null) gpu.supports_fp8 = true;
  return bad ? null : gpu;
}

function currency() { return currencyOf(ctx.app.state, i18n.lang()); }

// Prices typed in yuan go to the engine as yuan (docs/CONTRACT.md "Catalog
// listings": price_cny, and cloud_prices in CNY, which it converts at its
// own rate where it needs dollars), so the link keeps what was typed.
function putYuan(gpu, key, value) {
  if (key === 'price_usd') { gpu.price_cny = value; return; }
  gpu.cloud_prices = [{ provider: 'user', currency: 'cny', per_gpu_hour: value,
    date: new Date().toISOString().slice(0, 7), source: 'user input' }];
}

// The money fields' labels name the currency in force; a figure typed in
// the other one is converted at the engine's rate when the currency changes.
function syncMoneyFields() {
  var cur = currency(), rate = ctx.app.cnyPerUsd;
  GPU_FIELDS.forEach(function (f) {
    if (f[2] !== 'money') return;
    var input = $('#cg-' + f[0]), label = $('label[for="cg-' + f[0] + '"] .money-label');
    if (label) label.textContent = ctx.t('gpu.' + f[0] + '.in', { cur: ctx.t('cur.' + cur) });
    if (!input) return;
    var typedIn = input.dataset.cur, v = format.parseInput(input.value);
    if (typedIn && typedIn !== cur && v >= 0 && typeof rate === 'number' && rate > 0) {
      var converted = cur === 'cny' ? v * rate : v / rate;
      input.value = String(Math.round(converted * 100) / 100);
    }
    input.dataset.cur = cur;
  });
}

function useGpu() {
  var jsonField = $('#cg-json');
  dom.fieldError(jsonField, null);
  var gpu;
  if (jsonField.value.trim()) {
    var parsed = parseJsonField(jsonField);
    if (!parsed) return;
    gpu = parsed.value;
  } else {
    gpu = gpuFromForm();
    if (!gpu) return;
  }
  var model = ctx.app.models.length ? ctx.app.models[0].id : 'llama-3.1-8b';
  try {
    var r = probe(model, gpu);
    ctx.change({ cg: { name: String(gpu.name || r.gpu.name).slice(0, 80), gpu: gpu } });
  } catch (e) {
    var map = {};
    GPU_FIELDS.forEach(function (f) { map['/gpu/' + f[0]] = $('#cg-' + f[0]); });
    engineFieldError(e, jsonField.value.trim() ? {} : map, jsonField.value.trim() ? jsonField : $('#cg-name'));
  }
}

function loadCatalogFiles() {
  var msg = $('#cat-message');
  var gFile = $('#cat-gpus').files[0], mFile = $('#cat-models').files[0];
  msg.textContent = '';
  if (!gFile && !mFile) { msg.textContent = ctx.t('custom.needOne'); return; }
  var current = engine.catalogTexts() || {};
  Promise.all([gFile ? readFile(gFile) : current.gpus, mFile ? readFile(mFile) : current.models]).then(function (texts) {
    try {
      engine.loadCatalog(texts[0], texts[1]);
      catalogLoaded();
    } catch (e) {
      // The engine keeps the previous catalog when the new one is rejected.
      msg.textContent = ctx.t('custom.errorAt', { message: i18n.errorText(e), path: e.path || '/' });
    }
  });
}

function catalogLoaded() {
  ctx.catalogChanged();
  var s = ctx.app;
  $('#cat-message').textContent = ctx.t('status.catalogLoaded', { gpus: s.gpus.length, models: s.models.length });
  ctx.change({});
}

function exportCatalog() {
  var texts = engine.catalogTexts();
  if (!texts) return;
  exporter.download('gpus.json', 'application/json', texts.gpus);
  exporter.download('models.json', 'application/json', texts.models);
}

function refreshLists() {
  var box = $('#cg-fields');
  var values = {}, curs = {};
  dom.$all('input, select', box).forEach(function (i) { values[i.id] = i.value; curs[i.id] = i.dataset.cur; });
  dom.replace(box, GPU_FIELDS.map(function (f) {
    var id = 'cg-' + f[0];
    var input = f[2] === 'class'
      ? el('select', { id: id }, ['datacenter', 'workstation', 'consumer'].map(function (c) {
        return el('option', { value: c }, ctx.t('group.' + c));
      }))
      : el('input', { id: id, type: 'text', inputmode: f[2] === 'text' ? null : 'decimal', autocomplete: 'off', required: f[1] || null });
    if (values[id] != null) input.value = values[id];
    if (f[2] === 'money' && curs[id]) input.dataset.cur = curs[id];
    var optional = f[1] || f[2] === 'class' ? null : el('span', { class: 'optional' }, ' (' + ctx.t('custom.optional') + ')');
    var name = f[2] === 'money' ? el('span', { class: 'money-label' }) : ctx.t('gpu.' + f[0]);
    return el('div', { class: 'field' }, [el('label', { for: id }, [name, optional]), input]);
  }));
  syncMoneyFields();
}

function render() {
  var s = ctx.app.state;
  $('#cm-active').textContent = s.cm ? ctx.t('custom.modelActive', { name: s.cm.name }) : '';
  $('#cg-active').textContent = s.cg ? ctx.t('custom.gpuActive', { name: s.cg.name }) : '';
  $('#cm-remove').hidden = !s.cm;
  $('#cg-remove').hidden = !s.cg;
  syncMoneyFields();
}

export { init, render, refreshLists, GPU_FIELDS, jsonErrorAt };
