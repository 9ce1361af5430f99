// The detail's plan knobs (docs/CONTRACT.md "Scenario"): the GPU count (any
// whole number), gradient checkpointing and the micro-batch for training,
// llama.cpp/Ollama offload with the host's RAM, Apple's GPU memory limit.
// Each left on auto says what the planner chose (the result's `plan`).
import * as dom from '../dom/dom.js';
import * as format from '../format/format.js';
import * as i18n from '../i18n/i18n.js';

var el = dom.el;
var LLAMA_ENGINES = ['llama.cpp', 'ollama'];

function field(id, label, control, hint) {
  return el('div', { class: 'field' }, [el('label', { for: id }, label), control,
    hint ? el('span', { class: 'knob-auto', id: id + '-auto' }, hint) : null]);
}

// The number boxes on screen: text typed but not yet committed goes with
// whatever knob changes next (a select picked right after typing), so a
// redraw never drops it.
var boxes = [];

// A box's patch for its text: {} when the text is what it last committed,
// null when the text is not a whole number in range.
function boxPatch(box) {
  var text = box.input.value.trim();
  if (text === box.committed) return {};
  var n = Number(text);
  if (text !== '' && !(Number.isInteger(n) && n >= box.min && n <= box.max)) return null;
  return box.toPatch(text === '' ? null : n);
}

// Every box's uncommitted text as one patch (marked committed), bad ones left out.
function pending(except) {
  var patch = {};
  boxes.forEach(function (box) {
    if (box === except || !box.input.isConnected) return;
    var p = boxPatch(box);
    if (p) { Object.assign(patch, p); box.committed = box.input.value.trim(); }
  });
  return patch;
}

// A whole-number box: empty = auto; commits on change (not per keystroke).
// toPatch(n | null) → the state patch; change(patch) applies it.
function numberBox(id, value, min, max, placeholder, toPatch, change) {
  var input = el('input', { id: id, type: 'number', inputmode: 'numeric', min: String(min), max: String(max), step: '1',
    value: value == null ? '' : String(value), placeholder: placeholder });
  var box = { input: input, min: min, max: max, toPatch: toPatch, committed: value == null ? '' : String(value) };
  boxes.push(box);
  input.addEventListener('change', function () {
    var patch = boxPatch(box);
    if (!patch) { input.setAttribute('aria-invalid', 'true'); return; }
    input.removeAttribute('aria-invalid');
    if (!Object.keys(patch).length) return;
    box.committed = input.value.trim();
    change(Object.assign(pending(box), patch));
  });
  return input;
}

function choice(id, options, value, onValue) {
  var select = el('select', { id: id });
  dom.fillSelect(select, options, value);
  select.addEventListener('change', function () { onValue(select.value); });
  return select;
}

// What the planner chose, for a knob left on auto: "auto: 3", "auto: on".
function chose(ctx, text) { return text == null ? null : ctx.t('knob.chose', { value: text }); }

// r: the estimate (null when it failed); s: the page state; knobs:
// {training, inference, engine, apple}; ctx: {t, locale, change}.
function fields(r, s, knobs, ctx) {
  var plan = (r && r.plan) || {};
  var out = [];
  boxes = [];
  // A select's change takes the boxes' typed text with it.
  var change = function (patch) { ctx.change(Object.assign(pending(null), patch)); };
  var count = s.cnt === 'auto' ? null : s.cnt;
  out.push(field('detail-count', ctx.t('detail.gpuCount'),
    numberBox('detail-count', count, 1, 1024, ctx.t('knob.auto'), function (n) { return { cnt: n == null ? 'auto' : n }; }, ctx.change),
    count == null && r ? chose(ctx, String(r.gpu_count)) : null));
  if (knobs.training) {
    out.push(field('detail-ckpt', ctx.t('knob.checkpointing'), choice('detail-ckpt', [
      { value: 'auto', label: ctx.t('knob.auto') }, { value: 'on', label: ctx.t('knob.on') }, { value: 'off', label: ctx.t('knob.off') }],
    s.checkpointing, function (v) { change({ checkpointing: v }); }),
    s.checkpointing === 'auto' && plan.gradient_checkpointing != null ? chose(ctx, ctx.t(plan.gradient_checkpointing ? 'knob.on' : 'knob.off')) : null));
    out.push(field('detail-micro-batch', ctx.t('knob.microBatch'),
      // Left empty, the engine searches it (the CLI's default) and says what it chose.
      numberBox('detail-micro-batch', s.b, 1, 1e6, ctx.t('knob.auto'), function (n) { return { b: n }; }, ctx.change),
      s.b == null && plan.micro_batch != null ? chose(ctx, String(plan.micro_batch)) : null));
  }
  if (knobs.inference && LLAMA_ENGINES.indexOf(knobs.engine) >= 0) {
    out.push(field('detail-offload', ctx.t('knob.offload'), choice('detail-offload', ['auto', 'none', 'layers', 'moe-experts'].map(function (v) {
      return { value: v, label: ctx.t('knob.offload.' + v) };
    }), s.offload, function (v) { change({ offload: v }); }),
    s.offload === 'auto' && plan.offload ? chose(ctx, offloadText(plan, ctx)) : null));
    if (s.offload === 'layers') {
      out.push(field('detail-gpu-layers', ctx.t('knob.gpuLayers'),
        numberBox('detail-gpu-layers', s.gpuLayers, 0, 100000, ctx.t('knob.auto'), function (n) { return { gpuLayers: n }; }, ctx.change),
        s.gpuLayers == null && plan.gpu_layers != null ? chose(ctx, String(plan.gpu_layers)) : null));
    }
    if (s.offload === 'moe-experts') {
      out.push(field('detail-cpu-moe', ctx.t('knob.cpuMoeLayers'),
        numberBox('detail-cpu-moe', s.cpuMoeLayers, 0, 100000, ctx.t('knob.auto'), function (n) { return { cpuMoeLayers: n }; }, ctx.change),
        s.cpuMoeLayers == null && plan.cpu_moe_layers != null ? chose(ctx, String(plan.cpu_moe_layers)) : null));
    }
  }
  if (knobs.apple || (knobs.inference && LLAMA_ENGINES.indexOf(knobs.engine) >= 0)) {
    var ram = explained(r, 'host_ram_gib');
    out.push(field('detail-host-ram', ctx.t('knob.hostRam'),
      numberBox('detail-host-ram', s.hostRamGib, 1, 1e7, ctx.t('knob.default'), function (n) { return { hostRamGib: n }; }, ctx.change),
      s.hostRamGib == null && ram != null ? ctx.t('knob.defaultWas', { value: format.gib(ctx.locale, ram) }) : null));
  }
  if (knobs.apple) {
    out.push(field('detail-wired', ctx.t('knob.wiredLimit'),
      numberBox('detail-wired', s.wiredLimitGib, 1, 1e7, ctx.t('knob.default'), function (n) { return { wiredLimitGib: n }; }, ctx.change),
      s.wiredLimitGib == null && r ? ctx.t('knob.defaultWas', { value: format.gib(ctx.locale, r.gpu.memory_gib) }) : null));
  }
  return out;
}

// A term of the engine's explain (the defaults it took say what they were there).
function explained(r, term) {
  var list = (r && r.explain) || [];
  for (var i = 0; i < list.length; i++) if (list[i].term === term) return list[i].value;
  return null;
}

// "none", "31 layers' experts on the CPU", "40 layers on the GPU",
// "optimizer states on the CPU (ZeRO-Offload)".
function offloadText(plan, ctx) {
  if (plan.offload === 'moe-experts' && plan.cpu_moe_layers != null) return ctx.t('knob.cpuMoeChosen', { n: plan.cpu_moe_layers });
  if (plan.offload === 'layers' && plan.gpu_layers != null) return ctx.t('knob.gpuLayersChosen', { n: plan.gpu_layers });
  // A value this page has no words for yet is shown as the engine names it.
  return i18n.has('knob.offload.' + plan.offload) ? ctx.t('knob.offload.' + plan.offload) : String(plan.offload);
}

export { fields, offloadText, LLAMA_ENGINES };
