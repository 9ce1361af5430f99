// Workload controls and matrix filters: fills them from the state, reads
// them back, and reports valid changes. A bad value stays in its field with
// a message beside it; the state keeps the last good value.
import * as dom from '../dom/dom.js';
import * as format from '../format/format.js';
import * as i18n from '../i18n/i18n.js';
import { GROUPS, TASKS, currencyOf, defaults, isTraining } from '../state/defaults.js';
import { ENGINES, INTER_NODES, INTER_NODE_LABELS, WEIGHT_GROUPS } from '../state/vocabulary.js';

var $ = dom.$, el = dom.el;
var GPU_LIMITS = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 24, 32, 48, 64, 128, 256, 512, 1024];
var CONTEXTS = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];
var WEIGHT_LABELS = { fp32: 'FP32', bf16: 'BF16', fp16: 'FP16', fp8: 'FP8', int8: 'INT8', nf4: 'NF4 (bitsandbytes)',
  'gptq-int4': 'GPTQ int4', 'awq-int4': 'AWQ int4', mxfp4: 'MXFP4' };
// Labels of the engines (state/vocabulary.js lists them).
var ENGINE_LABELS = { transformers: 'Transformers', vllm: 'vLLM', sglang: 'SGLang', 'tensorrt-llm': 'TensorRT-LLM',
  'llama.cpp': 'llama.cpp', ollama: 'Ollama', mlx: 'MLX (Apple)', deepspeed: 'DeepSpeed', fsdp: 'PyTorch FSDP',
  megatron: 'Megatron-LM', unsloth: 'Unsloth', torchtune: 'torchtune' };
var DEBOUNCE_MS = 160;

var ctx = null;  // {getState, onChange, t, cnyPerUsd}
// Fields whose typed text waits for its debounce: a repaint in between
// (another control changed) leaves their text alone, and the text is
// committed when its timer fires.
var pending = {};

// Number fields: id → [state key, parse(text) → value | undefined (bad)]
var NUMBER_FIELDS = {
  context: ['ctx', intIn(1, 1e8, false)], batch: ['b', intIn(1, 1e6, true)],
  'train-tokens': ['tt', tokens], 'f-pmin': ['pmin', numIn(0, 1e6)], 'f-pmax': ['pmax', numIn(0, 1e6)],
  'f-mem': ['mem', numIn(0, 1e6)], 'f-price': ['price', priceIn], 'gpus-per-node': ['gpusPerNode', intIn(1, 1024, true)]
};

function intIn(min, max, optional) {
  return function (s) {
    var v = format.parseInput(s);
    if (v === null) return optional ? null : undefined;
    return Number.isInteger(v) && v >= min && v <= max ? v : undefined;
  };
}
function numIn(min, max) {
  return function (s) {
    var v = format.parseInput(s);
    if (v === null) return null;
    return isFinite(v) && v >= min && v <= max ? v : undefined;
  };
}
// The price filter is in the currency in force; the state keeps dollars
// (the engine's gpu_filter.max_price_usd), converted at the engine's rate.
function priceRate() {
  var rate = ctx.cnyPerUsd ? ctx.cnyPerUsd() : null;
  return currencyOf(ctx.getState(), i18n.lang()) === 'cny' && typeof rate === 'number' && rate > 0 ? rate : 1;
}
function priceIn(s) {
  var v = numIn(0, 1e10)(s);
  if (v == null) return v;
  var usd = v / priceRate();
  return usd <= 1e9 ? Math.round(usd * 100) / 100 : undefined;
}

function tokens(s) {
  var v = format.parseInput(s);
  if (v === null) return null;
  return isFinite(v) && v >= 1 && v <= 1e16 ? Math.round(v) : undefined;
}
function errorFor(id) {
  if (id === 'context') return ctx.t('error.wholeNumber', { min: 1, max: '100,000,000' });
  if (id === 'batch') return ctx.t('error.wholeNumber', { min: 1, max: '1,000,000' });
  if (id === 'train-tokens') return ctx.t('error.tokens');
  return ctx.t('error.number');
}

function init(options) {
  ctx = options;
  buildStaticOptions();
  ['task', 'weights', 'max-gpus', 'engine', 'show', 'lang', 'currency', 'checkpointing', 'inter-node'].forEach(function (id) {
    $('#' + id).addEventListener('change', onSelect);
  });
  Object.keys(NUMBER_FIELDS).forEach(function (id) {
    var input = $('#' + id), timer = null;
    input.addEventListener('input', function () {
      clearTimeout(timer);
      pending[id] = true;
      timer = setTimeout(function () { delete pending[id]; onNumber(id); }, DEBOUNCE_MS);
    });
    input.addEventListener('change', function () { clearTimeout(timer); delete pending[id]; onNumber(id); });
  });
  bindSearch('f-search', 'q');
  bindSearch('f-gpu', 'gq');
  $('#f-families-list').addEventListener('change', onFamilies);
  $('#f-classes-list').addEventListener('change', onClasses);
  $('#f-fam-all').addEventListener('click', function () { ctx.onChange({ fam: [] }); });
  $('#f-fam-none').addEventListener('click', function () { ctx.onChange({ fam: ['\u2205'] }); });
  $('#f-reset').addEventListener('click', onReset);
  $('#controls').addEventListener('submit', function (e) { e.preventDefault(); });
}

function buildStaticOptions() {
  var limits = $('#max-gpus');
  dom.fillSelect(limits, GPU_LIMITS.map(function (n) { return { value: String(n), label: String(n) }; }));
  var ctxList = $('#context-list');
  CONTEXTS.forEach(function (n) { ctxList.appendChild(el('option', { value: String(n) })); });
}

// Texts that depend on the language.
function translate(state) {
  var weights = [{ value: 'auto', label: ctx.t('ctl.auto') }].concat(WEIGHT_GROUPS.map(function (g) {
    return { label: ctx.t(g[0]), options: g[1].map(function (w) { return { value: w, label: WEIGHT_LABELS[w] || 'GGUF ' + w }; }) };
  }));
  dom.fillSelect($('#weights'), weights, state.w);
  var engines = ENGINES.map(function (k) { return { value: k, label: k === 'auto' ? ctx.t('ctl.auto') : ENGINE_LABELS[k] || k }; });
  dom.fillSelect($('#engine'), engines, state.eng);
  dom.fillSelect($('#inter-node'), [{ value: 'auto', label: ctx.t('ctl.interNodeAuto') }].concat(INTER_NODES.map(function (k) {
    return { value: k, label: INTER_NODE_LABELS[k] || k };
  })), state.interNode);
  var classes = $('#f-classes-list');
  dom.clear(classes);
  GROUPS.forEach(function (g) {
    classes.appendChild(el('label', null, [el('input', { type: 'checkbox', value: g }), ctx.t('group.' + g)]));
  });
  dom.$all('.field-error').forEach(function (n) { n.remove(); });
  dom.$all('[aria-invalid]').forEach(function (n) { n.removeAttribute('aria-invalid'); });
}

function setFamilies(families) {
  var list = $('#f-families-list');
  dom.clear(list);
  families.forEach(function (f) {
    list.appendChild(el('label', null, [el('input', { type: 'checkbox', value: f }), f]));
  });
}

// show: the value's text where the field is (re)filled (default String);
// text that already reads as the value stays as typed ("2T", "1e12").
function setIfIdle(input, value, show) {
  if (pending[input.id]) return;
  if (document.activeElement === input && input.getAttribute('aria-invalid') === 'true') return;
  var text = value == null ? '' : show ? show(value) : String(value);
  if (input.value !== text && !(value != null && format.parseInput(input.value) === value)) input.value = text;
}

function sync(state) {
  $('#task').value = state.task;
  $('#weights').value = state.w;
  var limits = $('#max-gpus');
  if (!limits.querySelector('option[value="' + state.g + '"]')) limits.appendChild(el('option', { value: String(state.g) }, String(state.g)));
  limits.value = String(state.g);
  $('#engine').value = state.eng;
  $('#checkpointing').value = state.checkpointing;
  $('#inter-node').value = state.interNode;
  setIfIdle($('#gpus-per-node'), state.gpusPerNode);
  $('#show').value = state.show;
  $('#lang').value = i18n.lang();
  $('#currency').value = currencyOf(state, i18n.lang());
  setIfIdle($('#context'), state.ctx);
  setIfIdle($('#batch'), state.b);
  setIfIdle($('#train-tokens'), state.tt, format.tokenCount);
  var batch = TASKS[state.task].batch;
  $('#batch').placeholder = batch === 'auto' ? ctx.t('knob.auto') : String(batch);
  $('#train-tokens').placeholder = format.tokenCount(TASKS[state.task].trainTokens || 0);
  setIfIdle($('#f-pmin'), state.pmin);
  setIfIdle($('#f-pmax'), state.pmax);
  setIfIdle($('#f-mem'), state.mem);
  var rate = priceRate();
  setIfIdle($('#f-price'), state.price == null ? null : rate === 1 ? state.price : Math.round(state.price * rate));
  $('#f-price-label').textContent = ctx.t('filter.maxPrice', { cur: ctx.t(rate === 1 ? 'cur.usd' : 'cur.cny') });
  setIfIdle($('#f-search'), state.q);
  setIfIdle($('#f-gpu'), state.gq);
  syncChecks('#f-families-list', state.fam);
  syncChecks('#f-classes-list', state.cls);
  var all = dom.$all('#f-families-list input');
  var on = all.filter(function (i) { return i.checked; }).length;
  $('#f-families-count').textContent = '(' + ctx.t('filter.familiesCount', { n: on, total: all.length }) + ')';
  var training = isTraining(state);
  $('#workload').classList.toggle('training', training);
  $('#context-label').textContent = ctx.t(training ? 'ctl.seqLen' : 'ctl.context');
  $('#batch-label').textContent = ctx.t(training ? 'ctl.microBatch' : state.task === 'serving' ? 'ctl.concurrency' : 'ctl.batch');
}

// An empty list in the state means "all".
function syncChecks(selector, values) {
  dom.$all(selector + ' input').forEach(function (i) {
    i.checked = !values.length || values.indexOf(i.value) >= 0;
  });
}

function readChecks(selector) {
  var inputs = dom.$all(selector + ' input');
  var on = inputs.filter(function (i) { return i.checked; }).map(function (i) { return i.value; });
  if (on.length === inputs.length) return [];
  return on.length ? on : ['\u2205'];  // none ticked: a value no entry has, so nothing matches
}

function onSelect(e) {
  var id = e.target.id, v = e.target.value;
  var key = { task: 'task', weights: 'w', 'max-gpus': 'g', engine: 'eng', show: 'show', lang: 'lang', currency: 'cur',
    checkpointing: 'checkpointing', 'inter-node': 'interNode' }[id];
  var patch = {};
  patch[key] = key === 'g' ? Number(v) : v;
  if (key === 'task') { patch.b = null; patch.tt = null; }
  ctx.onChange(patch, { source: id });
}

function onNumber(id) {
  var input = $('#' + id), spec = NUMBER_FIELDS[id];
  var v = spec[1](input.value);
  if (v === undefined) {
    dom.fieldError(input, errorFor(id));
    return;
  }
  dom.fieldError(input, null);
  var patch = {};
  patch[spec[0]] = v;
  if (JSON.stringify(ctx.getState()[spec[0]]) !== JSON.stringify(v)) ctx.onChange(patch, { source: id });
}

function bindSearch(id, key) {
  var input = $('#' + id), timer = null;
  input.addEventListener('input', function () {
    clearTimeout(timer);
    pending[id] = true;
    timer = setTimeout(function () {
      delete pending[id];
      var patch = {};
      patch[key] = input.value.slice(0, 200);
      ctx.onChange(patch, { source: id });
    }, DEBOUNCE_MS);
  });
}

function onFamilies() { ctx.onChange({ fam: readChecks('#f-families-list') }, { source: 'families' }); }
function onClasses() { ctx.onChange({ cls: readChecks('#f-classes-list') }, { source: 'classes' }); }

function onReset() {
  Object.keys(NUMBER_FIELDS).forEach(function (id) { dom.fieldError($('#' + id), null); });
  var d = defaults();
  ctx.onChange({ q: d.q, gq: d.gq, fam: d.fam, pmin: d.pmin, pmax: d.pmax, cls: d.cls, gcl: d.gcl, mem: d.mem, price: d.price });
}

export { init, translate, setFamilies, sync };
