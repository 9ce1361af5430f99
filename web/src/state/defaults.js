// The page state's defaults: the page tasks and how each maps onto the
// engine's request, the values each control may take, and the state a
// fresh page starts from (its keys are the URL's, url-codec.js). The
// engine's own names (weights, engines, objectives) are in vocabulary.js.

// Page tasks and how each maps onto the engine's request (CONTRACT.md).
// batch: the request's default batch (inference) or micro-batch (training);
// trainTokens: tokens to train on, so the engine can report time and cost.
var TASKS = {
  inference: { task: 'inference', batch: 1 },
  serving: { task: 'inference', batch: 32 },
  lora: { task: 'finetune', method: 'lora', batch: 1, trainTokens: 1e8 },
  qlora: { task: 'finetune', method: 'qlora', batch: 1, trainTokens: 1e8 },
  full: { task: 'finetune', method: 'full', batch: 1, trainTokens: 1e8 },
  pretrain: { task: 'pretrain', batch: 1, trainTokens: 1e12 }
};
var VIEWS = ['matrix', 'recommend', 'inventory', 'custom'];
var METRICS = ['speed', 'cost', 'memory', 'gpus'];
var GROUPS = ['consumer', 'workstation', 'datacenter', 'china', 'other'];
var SORTS = ['family', 'size', 'name', 'gpu'];

var DEFAULTS = {
  view: 'matrix', lang: '', cur: 'usd', embed: false,
  task: 'inference', w: 'auto', ctx: 4096, b: null, g: 8, eng: 'auto', show: 'speed', tt: null,
  q: '', gq: '', fam: [], pmin: null, pmax: null, cls: [], mem: null, price: null,
  sort: 'family', dir: 'asc', sg: '',
  cell: '', cnt: 'auto',
  rm: '', obj: 'cheapest', pr: 'cloud', top: 10, cmp: [],
  inv: [], cm: null, cg: null
};

function clone(v) { return JSON.parse(JSON.stringify(v)); }
function defaults() { return clone(DEFAULTS); }

function isTraining(state) { return TASKS[state.task].task !== 'inference'; }
function batchOf(state) { return state.b != null ? state.b : TASKS[state.task].batch; }
function trainTokensOf(state) { return state.tt != null ? state.tt : TASKS[state.task].trainTokens || null; }

export { TASKS, VIEWS, METRICS, GROUPS, SORTS, DEFAULTS, defaults, isTraining, batchOf, trainTokensOf };
