// The source documents' scenarios as presets. The engine holds them
// (core/src/answers/presets.cpp; describe() hands them over, docs/CONTRACT.md
// "Describe"): each preset's request and model band set the page's workload
// and filters (a fresh set of filters, so presets do not pile up). What the
// page adds is only how the matrix shows a preset: the cells' metric and
// the GPU groups in view; a preset whose request narrows the GPUs by class
// (serving: data-centre and workstation cards) narrows the matrix the same
// way (gcl), so the matrix and the ranking hold the same cards. Pure.
import { TASKS, defaults } from './defaults.js';

var FILTER_KEYS = ['q', 'gq', 'fam', 'pmin', 'pmax', 'cls', 'gcl', 'mem', 'price', 'sort', 'dir', 'sg'];
var WORKLOAD_KEYS = ['task', 'w', 'ctx', 'b', 'g', 'eng', 'tt', 'show', 'obj'];

// How the matrix shows each preset: training by its speed, cheap inference
// by cost, serving by the users a replica serves within the preset's SLO;
// the multi-GPU training jobs among the cards built for them (serving's
// cards are the engine's own gpu_filter classes, toState).
var SHOWN = {
  speech: { show: 'cost' },
  lora: { show: 'speed' },
  sft: { show: 'speed', cls: ['datacenter', 'china'] },
  pretrain: { show: 'speed', cls: ['datacenter', 'china'] },
  serving: { show: 'users' },
  multimodal: { show: 'speed' }
};
var IDS = Object.keys(SHOWN);

var engineList = [];  // describe().presets

function setEngine(list) { engineList = Array.isArray(list) ? list.filter(function (p) { return p && p.id && p.request; }) : []; }
function list() { return engineList.slice(); }
function byId(id) {
  for (var i = 0; i < engineList.length; i++) if (engineList[i].id === id) return engineList[i];
  return null;
}

// The page task for an engine request: fine-tuning by its method; inference
// with many concurrent requests is the serving task.
function pageTask(r) {
  if (r.task === 'finetune') return r.method === 'qlora' ? 'qlora' : r.method === 'lora' ? 'lora' : 'full';
  if (r.task === 'pretrain') return 'pretrain';
  return r.batch > 1 ? 'serving' : 'inference';
}

// The page's keys a preset sets; those equal to the task's defaults are left out.
function toState(p) {
  var r = p.request, band = p.model_band || {};
  var task = pageTask(r);
  var out = { task: task, obj: r.objective };
  if (r.max_gpus != null) out.g = r.max_gpus;
  out.ctx = r.task === 'inference' ? (r.prompt_tokens || 0) + (r.output_tokens || 0) : r.seq_len;
  if (r.batch != null && r.batch !== TASKS[task].batch) out.b = r.batch;
  if (r.train_tokens != null && r.train_tokens !== TASKS[task].trainTokens) out.tt = r.train_tokens;
  if (band.min_params_b != null) out.pmin = band.min_params_b;
  if (band.max_params_b != null) out.pmax = band.max_params_b;
  if (band.modality) out.modalities = [band.modality];
  var shown = SHOWN[p.id] || {};
  Object.keys(shown).forEach(function (k) { out[k] = shown[k]; });
  var classes = r.gpu_filter && r.gpu_filter.classes;
  if (Array.isArray(classes) && classes.length) out.gcl = classes.slice();
  if (r.slo) serveKeys(r, out);
  return out;
}

// A preset with a service level (serving) also fills the serve view: its
// model, users, lengths and SLO; the matrix then shows the users one
// replica serves within that SLO (SHOWN).
function serveKeys(r, out) {
  out.sm = r.model || '';
  out.su = r.batch;
  out.sr = null;
  out.sttft = r.slo.ttft_s == null ? null : r.slo.ttft_s;
  out.stpot = r.slo.tpot_ms == null ? null : r.slo.tpot_ms;
  out.stps = r.slo.min_user_tokens_per_s == null ? null : r.slo.min_user_tokens_per_s;
  out.spi = r.prompt_tokens;
  out.spo = r.output_tokens;
}

// The preset's service level, if it sizes a service (its comparison lives in the serve view).
function sloOf(p) { return p && p.request && p.request.slo ? p.request.slo : null; }

// Families that hold at least one model of the wanted modalities.
function familiesWith(models, modalities) {
  var out = [];
  (models || []).forEach(function (m) {
    if (modalities.indexOf(m.modality) >= 0 && out.indexOf(m.family) < 0) out.push(m.family);
  });
  return out;
}

function apply(state, id, models) {
  var p = byId(id);
  if (!p) return state;
  var preset = toState(p);
  var base = defaults();
  var next = JSON.parse(JSON.stringify(state));
  FILTER_KEYS.concat(WORKLOAD_KEYS).forEach(function (k) { next[k] = base[k]; });
  Object.keys(preset).forEach(function (k) {
    if (k === 'modalities') next.fam = familiesWith(models, preset.modalities);
    else next[k] = Array.isArray(preset[k]) ? preset[k].slice() : preset[k];
  });
  return next;
}

// The preset the state matches exactly, if any (to mark its button pressed).
function matching(state, models) {
  for (var i = 0; i < engineList.length; i++) {
    var applied = apply(state, engineList[i].id, models);
    var same = FILTER_KEYS.concat(WORKLOAD_KEYS).every(function (k) {
      return JSON.stringify(applied[k]) === JSON.stringify(state[k]);
    });
    if (same) return engineList[i].id;
  }
  return null;
}

export { IDS, setEngine, list, byId, toState, apply, matching, familiesWith, sloOf };
