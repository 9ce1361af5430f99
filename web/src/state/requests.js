// The engine requests built from the page state (wasm/API.md), and engine
// error paths back to the control that holds the offending value.
import { TASKS, batchOf, currencyOf, trainTokensOf } from './defaults.js';
import { lang } from '../i18n/i18n.js';

var OUTPUT_TOKENS = 512;  // generated tokens per request within the context

// The workload part of every request (no model, no gpu).
function toScenario(state) {
  var def = TASKS[state.task];
  var req = { task: def.task };
  if (def.method) req.method = def.method;
  if (state.eng !== 'auto') req.engine = state.eng;
  if (state.w !== 'auto') req.weights = state.w;
  var batch = batchOf(state);
  if (batch !== 'auto') req.batch = batch;
  if (def.task === 'inference') {
    var output = Math.min(OUTPUT_TOKENS, Math.floor(state.ctx / 2));
    req.prompt_tokens = state.ctx - output;
    req.output_tokens = output;
  } else {
    req.seq_len = state.ctx;
    // The planner's choice unless set (the scenario controls and the detail share it).
    if (state.checkpointing !== 'auto') req.gradient_checkpointing = state.checkpointing === 'on';
    var tokens = trainTokensOf(state);
    if (tokens != null) req.train_tokens = tokens;
  }
  var net = {};
  if (state.interNode !== 'auto') net.inter_node = state.interNode;
  if (state.gpusPerNode != null) net.gpus_per_node = state.gpusPerNode;
  if (Object.keys(net).length) req.interconnect = net;
  req.currency = currencyOf(state, lang());
  return req;
}

// gpuIds: the GPUs the page picked itself (a text search, which the
// engine's filter lacks), or null for all; the column groups, memory and
// price go to the engine as its GPU filter either way.
function toMatrixRequest(state, gpuIds) {
  var req = toScenario(state);
  req.model = 'all';
  req.gpu = gpuIds || 'all';
  req.max_gpus = state.g;
  var gf = {};
  if (state.cls.length) gf.groups = state.cls.slice();
  if (state.gcl.length) gf.classes = state.gcl.slice();
  if (state.mem != null) gf.min_memory_gib = state.mem;
  if (state.price != null) gf.max_price_usd = state.price;
  if (Object.keys(gf).length) req.gpu_filter = gf;
  var mf = {};
  if (state.fam.length) mf.families = state.fam.slice();
  if (state.pmin != null) mf.min_params_b = state.pmin;
  if (state.pmax != null) mf.max_params_b = state.pmax;
  if (state.q.trim()) mf.search = state.q.trim();
  if (Object.keys(mf).length) req.model_filter = mf;
  // Users-at-SLO mode: the serve view's SLO, each cell sized as serve sizes a replica.
  if (state.show === 'users' && TASKS[state.task].task === 'inference') {
    var slo = sloOf(state);
    if (Object.keys(slo).length) req.slo = slo;
  }
  return req;
}

// The serve view's SLO (time to first token, time per output token, tokens/s
// per user); the matrix's users mode reads the same one.
function sloOf(state) {
  var slo = {};
  if (state.sttft != null) slo.ttft_s = state.sttft;
  if (state.stpot != null) slo.tpot_ms = state.stpot;
  if (state.stps != null) slo.min_user_tokens_per_s = state.stps;
  return slo;
}

// options.apple: the GPU is Apple's (its GPU memory limit applies).
function toEstimateRequest(state, model, gpu, count, options) {
  var req = toScenario(state);
  req.model = model;
  req.gpu = gpu;
  req.gpu_count = count == null ? 'auto' : count;
  addPlanKnobs(req, state, options || {});
  return req;
}

// The detail's plan knobs (checkpointing is the workload's, toScenario);
// what is left on auto stays out of the request.
function addPlanKnobs(req, state, options) {
  var training = TASKS[state.task].task !== 'inference';
  if (!training && state.offload !== 'auto') {
    req.parallel = { offload: state.offload };
    if (state.offload === 'layers' && state.gpuLayers != null) req.parallel.gpu_layers = state.gpuLayers;
    if (state.offload === 'moe-experts' && state.cpuMoeLayers != null) req.parallel.cpu_moe_layers = state.cpuMoeLayers;
  }
  var host = {};
  if (state.hostRamGib != null) host.ram_gib = state.hostRamGib;
  if (options.apple && state.wiredLimitGib != null) host.gpu_wired_limit_gib = state.wiredLimitGib;
  if (Object.keys(host).length) req.host = host;
}

// preset: the id of the scenario preset in force, so the engine reports the
// source documents' own picks next to its ranking.
function toRecommendRequest(state, model, preset) {
  var req = toScenario(state);
  if (model !== undefined) req.model = model;
  req.objective = state.obj;
  req.pricing = state.pr;
  if (preset) req.preset = preset;
  req.max_gpus = state.g;
  req.top = state.top;
  return req;
}

function toInventoryRequest(state) {
  var req = toScenario(state);
  req.inventory = state.inv.filter(function (i) { return i.gpu.trim(); })
    .map(function (i) { return { gpu: i.gpu.trim(), count: i.count }; });
  return req;
}

// The serve request (docs/CONTRACT.md "Serve"): users or a request rate,
// the SLO, the lengths, the GPU classes; the engine, weights and GPU limit
// of the workload controls; the pricing of the recommend view.
// gpuIds: the GPUs the reader named to compare (null: every GPU).
function toServeRequest(state, model, gpuIds) {
  var req = { model: model };
  if (gpuIds && gpuIds.length) req.gpu = gpuIds.slice();
  if (state.eng !== 'auto') req.engine = state.eng;
  if (state.w !== 'auto') req.weights = state.w;
  if (state.sr != null) req.request_rate_per_s = state.sr; else req.users = state.su;
  var slo = sloOf(state);
  if (Object.keys(slo).length) req.slo = slo;  // no target: rank by cost (an empty slo is refused)
  req.prompt_tokens = state.spi;
  req.output_tokens = state.spo;
  req.max_gpus = state.g;
  req.pricing = state.pr;
  req.top = state.top;
  req.currency = currencyOf(state, lang());
  if (state.scls.length) req.gpu_filter = { groups: state.scls.slice() };
  if (state.sdis === 'auto') req.disaggregated = 'auto';
  else if (state.sdis === 'yes') req.disaggregated = true;
  return req;
}

// Engine error paths → the control that holds the offending value.
var PATH_CONTROLS = {
  '/weights': 'weights', '/engine': 'engine', '/batch': 'batch', '/prompt_tokens': 'context',
  '/output_tokens': 'context', '/seq_len': 'context', '/max_gpus': 'max-gpus', '/train_tokens': 'train-tokens',
  '/method': 'task', '/task': 'task', '/gpu_filter/min_memory_gib': 'f-mem',
  '/gpu_filter/max_price_usd': 'f-price', '/users': 'sv-users', '/request_rate_per_s': 'sv-rate',
  '/gradient_checkpointing': 'checkpointing', '/interconnect/inter_node': 'inter-node', '/interconnect/gpus_per_node': 'gpus-per-node', '/parallel/offload': 'detail-offload', '/parallel/gpu_layers': 'detail-gpu-layers',
  '/parallel/cpu_moe_layers': 'detail-cpu-moe', '/host/ram_gib': 'detail-host-ram', '/host/gpu_wired_limit_gib': 'detail-wired',
  '/gpu_count': 'detail-count', '/slo/ttft_s': 'sv-ttft', '/slo/tpot_ms': 'sv-tpot', '/slo/min_user_tokens_per_s': 'sv-tps', '/model_filter/min_params_b': 'f-pmin', '/model_filter/max_params_b': 'f-pmax'
};
function controlForPath(path) {
  var p = String(path || '');
  while (p) {
    if (PATH_CONTROLS[p]) return PATH_CONTROLS[p];
    p = p.slice(0, p.lastIndexOf('/'));
  }
  return null;
}

export { toServeRequest, toScenario, toMatrixRequest, toEstimateRequest, toRecommendRequest, toInventoryRequest, controlForPath };
