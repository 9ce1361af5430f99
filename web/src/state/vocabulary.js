// The engine's names the page uses, in one place: the request values its
// controls offer (weights, engines, objectives, pricing, currencies) and the
// matrix cell fields its values decoder reads. The engine's describe()
// (docs/CONTRACT.md "Describe") lists the same names; missingFrom() says
// which the page names that the engine does not, and a Node test holds that
// at none. "auto" is the page's own: the request leaves the key out.
import { IDS as PRESET_IDS } from './presets.js';
import { TASKS } from './defaults.js';

// The weight formats, in the select's groups (labels in controls.js).
var WEIGHT_GROUPS = [
  ['wgroup.float', ['fp32', 'bf16', 'fp16']], ['wgroup.8bit', ['fp8', 'int8']],
  ['wgroup.4bit', ['nf4', 'gptq-int4', 'awq-int4', 'mxfp4']],
  ['wgroup.gguf', ['Q8_0', 'Q6_K', 'Q5_K_M', 'Q4_K_M', 'Q4_0', 'Q3_K_M', 'Q2_K']]];
var WEIGHTS = [].concat.apply(['auto'], WEIGHT_GROUPS.map(function (g) { return g[1]; }));
var ENGINES = ['auto', 'transformers', 'vllm', 'sglang', 'tensorrt-llm', 'llama.cpp', 'ollama', 'mlx', 'deepspeed', 'fsdp',
  'megatron', 'unsloth', 'torchtune'];
var OBJECTIVES = ['cheapest', 'fastest', 'cost_per_token', 'fewest_gpus', 'lowest_power'];
var PRICING = ['cloud', 'purchase'];
var CURRENCIES = ['usd', 'cny'];
// The fabrics between servers (interconnect.inter_node).
var INTER_NODES = ['infiniband-xdr', 'infiniband-ndr', 'infiniband-hdr', 'roce-400g', 'roce-200g', 'ethernet-100g', 'ethernet-25g'];
// Their names on screen (the workload control, the detail's plan).
var INTER_NODE_LABELS = { 'infiniband-xdr': 'InfiniBand XDR', 'infiniband-ndr': 'InfiniBand NDR', 'infiniband-hdr': 'InfiniBand HDR',
  'roce-400g': 'RoCE 400G', 'roce-200g': 'RoCE 200G', 'ethernet-100g': 'Ethernet 100G', 'ethernet-25g': 'Ethernet 25G' };

// The fields of the matrix cell, which the "values" layout carries (matrix/data.js).
var CELL_FIELDS = ['cost_usd', 'decode_tokens_per_s', 'fits_one', 'gpu_count', 'gpus_needed', 'needs_nvlink', 'nodes', 'prefill_tokens_per_s',
  'status', 'strategy', 'tight', 'total_gib', 'train_hours', 'train_tokens_per_s', 'usd_per_hour', 'usd_per_million_tokens',
  'users_at_slo', 'users_at_slo_fp8', 'users_at_slo_low', 'workload_figure'];

function unique(list) { return list.filter(function (v, i) { return v != null && list.indexOf(v) === i; }); }

// Every engine name the page uses, by the describe() key that lists it.
function pageNames() {
  var tasks = Object.keys(TASKS).map(function (k) { return TASKS[k]; });
  return {
    enums: {
      task: unique(tasks.map(function (t) { return t.task; })),
      method: unique(tasks.map(function (t) { return t.method; })),
      engine: ENGINES.filter(function (v) { return v !== 'auto'; }),
      weights: WEIGHTS.filter(function (v) { return v !== 'auto'; }),
      objective: OBJECTIVES.slice(), pricing: PRICING.slice(), currency: CURRENCIES.slice(), inter_node: INTER_NODES.slice()
    },
    matrix_cell_fields: CELL_FIELDS.slice(),
    presets: PRESET_IDS.slice()
  };
}

// The page's names that the engine's description lacks, as "enums.weights:
// fp4", "matrix_cell_fields: x", "presets: lora"; none when they agree.
function missingFrom(description) {
  var names = pageNames(), missing = [];
  var d = description || {};
  var enums = d.enums || {};
  Object.keys(names.enums).forEach(function (key) {
    names.enums[key].forEach(function (v) {
      if ((enums[key] || []).indexOf(v) < 0) missing.push('enums.' + key + ': ' + v);
    });
  });
  names.matrix_cell_fields.forEach(function (f) {
    if ((d.matrix_cell_fields || []).indexOf(f) < 0) missing.push('matrix_cell_fields: ' + f);
  });
  var presetIds = (d.presets || []).map(function (p) { return p.id; });
  names.presets.forEach(function (id) { if (presetIds.indexOf(id) < 0) missing.push('presets: ' + id); });
  return missing;
}

export { WEIGHT_GROUPS, WEIGHTS, ENGINES, OBJECTIVES, PRICING, CURRENCIES, INTER_NODES, INTER_NODE_LABELS, CELL_FIELDS, pageNames, missingFrom };
