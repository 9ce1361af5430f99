// The page state: one flat object that round-trips through the URL (query or
// hash; the hash wins), and the engine requests built from it.
(function (root) {
  var C = root.Caliper = root.Caliper || {};

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
  var OUTPUT_TOKENS = 512;  // generated tokens per request within the context
  var VIEWS = ['matrix', 'recommend', 'inventory', 'custom'];
  var METRICS = ['speed', 'cost', 'memory', 'gpus'];
  var OBJECTIVES = ['cheapest', 'fastest', 'cost_per_token', 'fewest_gpus', 'lowest_power'];
  var GROUPS = ['consumer', 'workstation', 'datacenter', 'china', 'other'];
  var ENGINES = ['auto', 'transformers', 'vllm', 'sglang', 'tensorrt-llm', 'llama.cpp', 'deepspeed', 'fsdp', 'megatron'];
  var WEIGHTS = ['auto', 'fp32', 'bf16', 'fp16', 'fp8', 'int8', 'nf4', 'gptq-int4', 'awq-int4', 'mxfp4',
    'Q8_0', 'Q6_K', 'Q5_K_M', 'Q4_K_M', 'Q4_0', 'Q3_K_M', 'Q2_K'];
  var SORTS = ['family', 'size', 'name', 'gpu'];
  var LIST_SEP = '|';

  var DEFAULTS = {
    view: 'matrix', lang: '', cur: 'usd', embed: false,
    task: 'inference', w: 'auto', ctx: 4096, b: null, g: 8, eng: 'auto', show: 'speed', tt: null,
    q: '', gq: '', fam: [], pmin: null, pmax: null, cls: [], mem: null, price: null,
    sort: 'family', dir: 'asc', sg: '',
    cell: '', cnt: 'auto',
    rm: '', obj: 'cheapest', pr: 'cloud', top: 10, cmp: [],
    inv: [], cm: null, cg: null
  };

  // How each key reads from text; anything invalid falls back to the default.
  var READERS = {
    view: oneOf(VIEWS), lang: oneOf(['', 'en', 'zh']), cur: oneOf(['usd', 'cny']), embed: flag,
    task: oneOf(Object.keys(TASKS)), w: oneOf(WEIGHTS), ctx: int(1, 1e8), b: int(1, 1e6), g: int(1, 1024),
    eng: oneOf(ENGINES), show: oneOf(METRICS), tt: num(1, 1e16),
    q: text, gq: text, fam: list, pmin: num(0, 1e6), pmax: num(0, 1e6), cls: listOf(GROUPS.concat(['\u2205'])),
    mem: num(0, 1e6), price: num(0, 1e9), sort: oneOf(SORTS), dir: oneOf(['asc', 'desc']), sg: text,
    cell: text, cnt: countOrAuto, rm: text, obj: oneOf(OBJECTIVES), pr: oneOf(['cloud', 'purchase']), top: int(1, 100), cmp: list,
    inv: inventory, cm: json, cg: json
  };

  function oneOf(values) {
    return function (s) { return values.indexOf(s) >= 0 ? s : undefined; };
  }
  function int(min, max) {
    return function (s) {
      var n = Number(s);
      return Number.isInteger(n) && n >= min && n <= max ? n : undefined;
    };
  }
  function num(min, max) {
    return function (s) {
      var n = s === '' ? NaN : Number(s);
      return isFinite(n) && n >= min && n <= max ? n : undefined;
    };
  }
  function flag(s) { return s === '1' || s === 'true'; }
  function text(s) { return String(s).slice(0, 200); }
  function list(s) { return s === '' ? [] : String(s).split(LIST_SEP).map(text).filter(Boolean); }
  function listOf(values) {
    return function (s) { return list(s).filter(function (v) { return values.indexOf(v) >= 0; }); };
  }
  function countOrAuto(s) { return s === 'auto' ? 'auto' : int(1, 1024)(s); }
  function json(s) {
    try {
      var v = JSON.parse(s);
      return v && typeof v === 'object' && !Array.isArray(v) ? v : undefined;
    } catch (e) { return undefined; }
  }
  // "4*2080 Ti 22GB|2*A800" → [{gpu:'2080 Ti 22GB', count:4}, {gpu:'A800', count:2}]
  function inventory(s) {
    return list(s).map(function (item) {
      var m = /^(\d+)\*(.*)$/.exec(item);
      return m ? { gpu: m[2], count: Math.max(1, Math.min(1024, Number(m[1]))) } : { gpu: item, count: 1 };
    });
  }
  function inventoryText(items) {
    return items.filter(function (i) { return i.gpu; }).map(function (i) { return i.count + '*' + i.gpu; }).join(LIST_SEP);
  }

  function clone(v) { return JSON.parse(JSON.stringify(v)); }
  function defaults() { return clone(DEFAULTS); }

  function applyParams(state, params) {
    params.forEach(function (value, key) {
      if (!Object.prototype.hasOwnProperty.call(READERS, key)) return;
      var v = READERS[key](value);
      if (v !== undefined) state[key] = v;
    });
    return state;
  }

  // Reads "?a=1" and "#b=2" (either may be empty); the hash wins.
  function parse(search, hash) {
    var state = defaults();
    applyParams(state, new URLSearchParams(String(search || '').replace(/^\?/, '')));
    applyParams(state, new URLSearchParams(String(hash || '').replace(/^#/, '')));
    return state;
  }

  function encodeValue(key, v) {
    if (key === 'inv') return inventoryText(v);
    if (key === 'cm' || key === 'cg') return JSON.stringify(v);
    if (Array.isArray(v)) return v.join(LIST_SEP);
    if (typeof v === 'boolean') return v ? '1' : '0';
    return String(v);
  }

  // Only what differs from the defaults, in a stable order.
  function serialize(state) {
    var params = new URLSearchParams();
    Object.keys(DEFAULTS).forEach(function (key) {
      var v = state[key];
      if (v === undefined || JSON.stringify(v) === JSON.stringify(DEFAULTS[key])) return;
      if (v === null) return;
      params.set(key, encodeValue(key, v));
    });
    return params.toString();
  }

  function isTraining(state) { return TASKS[state.task].task !== 'inference'; }
  function batchOf(state) { return state.b != null ? state.b : TASKS[state.task].batch; }
  function trainTokensOf(state) { return state.tt != null ? state.tt : TASKS[state.task].trainTokens || null; }

  // The workload part of every request (no model, no gpu).
  function toScenario(state) {
    var def = TASKS[state.task];
    var req = { task: def.task };
    if (def.method) req.method = def.method;
    if (state.eng !== 'auto') req.engine = state.eng;
    if (state.w !== 'auto') req.weights = state.w;
    req.batch = batchOf(state);
    if (def.task === 'inference') {
      var output = Math.min(OUTPUT_TOKENS, Math.floor(state.ctx / 2));
      req.prompt_tokens = state.ctx - output;
      req.output_tokens = output;
    } else {
      req.seq_len = state.ctx;
      var tokens = trainTokensOf(state);
      if (tokens != null) req.train_tokens = tokens;
    }
    req.currency = state.cur;
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
    if (state.mem != null) gf.min_memory_gib = state.mem;
    if (state.price != null) gf.max_price_usd = state.price;
    if (Object.keys(gf).length) req.gpu_filter = gf;
    var mf = {};
    if (state.fam.length) mf.families = state.fam.slice();
    if (state.pmin != null) mf.min_params_b = state.pmin;
    if (state.pmax != null) mf.max_params_b = state.pmax;
    if (state.q.trim()) mf.search = state.q.trim();
    if (Object.keys(mf).length) req.model_filter = mf;
    return req;
  }

  function toEstimateRequest(state, model, gpu, count) {
    var req = toScenario(state);
    req.model = model;
    req.gpu = gpu;
    req.gpu_count = count == null ? 'auto' : count;
    return req;
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

  // Case- and punctuation-insensitive text match, as the engine matches aliases.
  function normalizeName(s) { return String(s).toLowerCase().replace(/[^a-z0-9\u4e00-\u9fff]+/g, ''); }
  function matchesText(haystacks, needle) {
    var n = normalizeName(needle);
    if (!n) return true;
    return haystacks.some(function (h) { return h && normalizeName(h).indexOf(n) >= 0; });
  }

  // Engine error paths → the control that holds the offending value.
  var PATH_CONTROLS = {
    '/weights': 'weights', '/engine': 'engine', '/batch': 'batch', '/prompt_tokens': 'context',
    '/output_tokens': 'context', '/seq_len': 'context', '/max_gpus': 'max-gpus', '/train_tokens': 'train-tokens',
    '/method': 'task', '/task': 'task', '/gpu_filter/min_memory_gib': 'f-mem',
    '/gpu_filter/max_price_usd': 'f-price', '/model_filter/min_params_b': 'f-pmin', '/model_filter/max_params_b': 'f-pmax'
  };
  function controlForPath(path) {
    var p = String(path || '');
    while (p) {
      if (PATH_CONTROLS[p]) return PATH_CONTROLS[p];
      p = p.slice(0, p.lastIndexOf('/'));
    }
    return null;
  }

  var api = {
    TASKS: TASKS, VIEWS: VIEWS, METRICS: METRICS, OBJECTIVES: OBJECTIVES, GROUPS: GROUPS, ENGINES: ENGINES,
    WEIGHTS: WEIGHTS, DEFAULTS: DEFAULTS, defaults: defaults, parse: parse, serialize: serialize,
    isTraining: isTraining, batchOf: batchOf, trainTokensOf: trainTokensOf, toScenario: toScenario,
    toMatrixRequest: toMatrixRequest, toEstimateRequest: toEstimateRequest, toRecommendRequest: toRecommendRequest,
    toInventoryRequest: toInventoryRequest, normalizeName: normalizeName, matchesText: matchesText,
    controlForPath: controlForPath, inventoryText: inventoryText, parseInventory: inventory
  };
  C.state = api;
  if (typeof module === 'object') module.exports = api;
})(typeof window !== 'undefined' ? window : globalThis);
