// The page state's defaults: the page tasks and how each maps onto the
// engine's request, the values each control may take, and the state a
// fresh page starts from (its keys are the URL's, url-codec.js). The
// engine's own names (weights, engines, objectives) are in vocabulary.js.

// Page tasks and how each maps onto the engine's request (docs/CONTRACT.md).
// batch: the request's default batch (inference) or micro-batch (training:
// 'auto', the engine's own default, which searches it: docs/CONTRACT.md
// "batch"; the request then leaves batch out, as the CLI's does);
// trainTokens: tokens to train on, so the engine can report time and cost.
var TASKS = {
  inference: { task: 'inference', batch: 1 },
  serving: { task: 'inference', batch: 32 },
  lora: { task: 'finetune', method: 'lora', batch: 'auto', trainTokens: 1e8 },
  qlora: { task: 'finetune', method: 'qlora', batch: 'auto', trainTokens: 1e8 },
  full: { task: 'finetune', method: 'full', batch: 'auto', trainTokens: 1e8 },
  pretrain: { task: 'pretrain', batch: 'auto', trainTokens: 1e12 }
};
var VIEWS = ['matrix', 'serve', 'recommend', 'inventory', 'custom'];
// 'users': the users one replica of the cell's GPUs serves within the serve
// view's SLO (the matrix's users-at-SLO mode; inference only).
var METRICS = ['speed', 'cost', 'memory', 'gpus', 'users'];
var GROUPS = ['consumer', 'workstation', 'datacenter', 'china', 'other'];
// The catalog's GPU classes (the engine's gpu_filter classes; a GPU's
// "class" in data/gpus.json), which the serving preset narrows to.
var CLASSES = ['consumer', 'workstation', 'datacenter'];
var SORTS = ['family', 'size', 'name', 'gpu'];

var DEFAULTS = {
  view: 'matrix', lang: '', cur: '', embed: false,
  task: 'inference', w: 'auto', ctx: 4096, b: null, g: 8, eng: 'auto', show: 'speed', tt: null,
  q: '', gq: '', fam: [], pmin: null, pmax: null, cls: [], gcl: [], mem: null, price: null,
  sort: 'family', dir: 'asc', sg: '',
  cell: '', cnt: 'auto',
  // The detail's plan knobs (docs/CONTRACT.md): 'auto' and null leave the
  // choice to the planner (gradient checkpointing, llama.cpp offload and its
  // layer counts) or the engine's defaults (host RAM, Apple's GPU memory).
  // The fabric between servers and GPUs per server (the engine's defaults
  // follow the GPU: its class's fabric, its server's size).
  interNode: 'auto', gpusPerNode: null,
  checkpointing: 'auto', offload: 'auto', gpuLayers: null, cpuMoeLayers: null, hostRamGib: null, wiredLimitGib: null,
  rm: '', obj: 'cheapest', pr: 'cloud', top: 10, cmp: [],
  inv: [], cm: null, cg: null,
  // The serve view (#view=serve): model, users or request rate, the SLO
  // (time to first token s, time per output token ms, tokens/s per user),
  // prompt and output tokens, GPU classes, prefill/decode split.
  sm: '', su: 50, sr: null, sttft: null, stpot: null, stps: 20, spi: 2048, spo: 512, scls: [],
  // Disaggregated prefill/decode: not tried, also tried, or the only ones (serve's "disaggregated").
  sdis: 'no',
  // The GPUs to compare, as people name them ("A800, H20, 4090D, 910B"); empty: every GPU.
  sgq: ''
};

// The currency in force: the reader's own choice (kept in the URL), else
// the language's: yuan for Chinese, dollars otherwise.
function currencyOf(state, lang) { return state.cur || (lang === 'zh' ? 'cny' : 'usd'); }

function clone(v) { return JSON.parse(JSON.stringify(v)); }
function defaults() { return clone(DEFAULTS); }

function isTraining(state) { return TASKS[state.task].task !== 'inference'; }
function batchOf(state) { return state.b != null ? state.b : TASKS[state.task].batch; }
function trainTokensOf(state) { return state.tt != null ? state.tt : TASKS[state.task].trainTokens || null; }

export { currencyOf, TASKS, VIEWS, METRICS, GROUPS, CLASSES, SORTS, DEFAULTS, defaults, isTraining, batchOf, trainTokensOf };
