// The source documents' scenarios as presets: each sets the workload and the
// filters (a fresh set of filters, so presets do not pile up). Pure.
import { defaults } from './defaults.js';

var FILTER_KEYS = ['q', 'gq', 'fam', 'pmin', 'pmax', 'cls', 'mem', 'price', 'sort', 'dir', 'sg'];
var WORKLOAD_KEYS = ['task', 'w', 'ctx', 'b', 'g', 'eng', 'tt', 'show', 'obj'];

// Size bands follow the documents' scenario table (speech/OCR < 7B, LoRA
// 7–13B, SFT/RLHF 13–70B, pre-training 70B+, multimodal 7–30B); the bounds
// are widened slightly so "7B" and "70B" models whose exact counts are 6.7B
// or 72.7B stay inside their band.
var PRESETS = {
  speech: { task: 'serving', b: 8, pmax: 7.9, show: 'cost', obj: 'cheapest' },
  lora: { task: 'lora', ctx: 2048, pmin: 6.5, pmax: 13.9, show: 'speed', obj: 'cheapest' },
  sft: { task: 'full', ctx: 2048, pmin: 13, pmax: 73, g: 64, cls: ['datacenter', 'china'], show: 'speed', obj: 'cost_per_token' },
  pretrain: { task: 'pretrain', ctx: 4096, pmin: 65, g: 1024, tt: 1e12, cls: ['datacenter', 'china'], show: 'speed',
    obj: 'cost_per_token' },
  serving: { task: 'serving', b: 64, ctx: 4096, cls: ['datacenter', 'china', 'workstation'], show: 'cost', obj: 'cost_per_token' },
  multimodal: { task: 'inference', ctx: 4096, pmin: 6.5, pmax: 31, modalities: ['vision'], show: 'speed', obj: 'cost_per_token' }
};
var IDS = Object.keys(PRESETS);

// Families that hold at least one model of the wanted modalities.
function familiesWith(models, modalities) {
  var out = [];
  (models || []).forEach(function (m) {
    if (modalities.indexOf(m.modality) >= 0 && out.indexOf(m.family) < 0) out.push(m.family);
  });
  return out;
}

function apply(state, id, models) {
  var preset = PRESETS[id];
  if (!preset) return state;
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
  for (var i = 0; i < IDS.length; i++) {
    var applied = apply(state, IDS[i], models);
    var same = FILTER_KEYS.concat(WORKLOAD_KEYS).every(function (k) {
      return JSON.stringify(applied[k]) === JSON.stringify(state[k]);
    });
    if (same) return IDS[i];
  }
  return null;
}

export { PRESETS, IDS, apply, matching, familiesWith };
