// The page state ↔ the URL (query or hash; the hash wins): each key's
// reader, the list and inventory texts, and only what differs from the
// defaults written back, in a stable order.
import { CURRENCIES, ENGINES, INTER_NODES, OBJECTIVES, PRICING, WEIGHTS } from './vocabulary.js';
import { CLASSES, DEFAULTS, GROUPS, METRICS, SORTS, TASKS, VIEWS, defaults } from './defaults.js';

var LIST_SEP = '|';

// How each key reads from text; anything invalid falls back to the default.
var READERS = {
  view: oneOf(VIEWS), lang: oneOf(['', 'en', 'zh']), cur: oneOf(CURRENCIES), embed: flag,
  task: oneOf(Object.keys(TASKS)), w: oneOf(WEIGHTS), ctx: int(1, 1e8), b: int(1, 1e6), g: int(1, 1024),
  eng: oneOf(ENGINES), show: oneOf(METRICS), tt: num(1, 1e16),
  q: text, gq: text, fam: list, pmin: num(0, 1e6), pmax: num(0, 1e6), cls: listOf(GROUPS.concat(['\u2205'])), gcl: listOf(CLASSES),
  mem: num(0, 1e6), price: num(0, 1e9), sort: oneOf(SORTS), dir: oneOf(['asc', 'desc']), sg: text,
  cell: text, cnt: countOrAuto, rm: text, obj: oneOf(OBJECTIVES), pr: oneOf(PRICING), top: int(1, 100), cmp: list,
  inv: inventory, cm: custom('model'), cg: custom('gpu'),
  sm: text, su: int(1, 1e7), sr: num(0.001, 1e6), sttft: num(0.001, 3600), stpot: num(0.01, 60000), stps: num(0.01, 1e5),
  spi: int(1, 1e7), spo: int(1, 1e7), scls: listOf(GROUPS), sdis: oneOf(['no', 'auto', 'yes']), sgq: text,
  interNode: oneOf(['auto'].concat(INTER_NODES)), gpusPerNode: int(1, 1024),
  checkpointing: oneOf(['auto', 'on', 'off']), offload: oneOf(['auto', 'none', 'layers', 'moe-experts']),
  gpuLayers: int(0, 100000), cpuMoeLayers: int(0, 100000), hostRamGib: num(0.001, 1e7), wiredLimitGib: num(0.001, 1e7)
};
// The URL's short names for state keys whose own names are long.
var URL_KEYS = { interNode: 'net', gpusPerNode: 'gpn', checkpointing: 'ck', offload: 'off', gpuLayers: 'ngl', cpuMoeLayers: 'ncm', hostRamGib: 'ram', wiredLimitGib: 'wl' };
var STATE_KEYS = {};
Object.keys(URL_KEYS).forEach(function (k) { STATE_KEYS[URL_KEYS[k]] = k; });

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
var TEXT_MAX = 200;
function text(s) { return String(s).slice(0, TEXT_MAX); }
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
// The user's own model or GPU: {name, ..., model|gpu: the engine's object};
// anything else (a link cut short, a hand-edited one) is refused. The name
// is shown, so it keeps the length of the other texts.
function custom(inner) {
  return function (s) {
    var v = json(s);
    if (!v || !v[inner] || typeof v[inner] !== 'object' || Array.isArray(v[inner])) return undefined;
    var name = String(v.name == null ? '' : v.name);
    if (name.length > TEXT_MAX) shortened.push(inner === 'model' ? 'cm' : 'cg');
    v.name = text(name);
    // The model's reading warnings ({code, message}), shown beside its name.
    if (v.warn != null) {
      v.warn = Array.isArray(v.warn) ? v.warn.slice(0, 4).filter(function (w) { return w && typeof w === 'object'; })
        .map(function (w) { return { code: text(w.code || ''), message: String(w.message || '').slice(0, 600) }; }) : [];
      if (!v.warn.length) delete v.warn;
    }
    return v;
  };
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

// The keys of the last parse() whose values were refused (the page says
// so rather than failing later on what it could not read).
var refused = [];
// The keys whose names were cut to TEXT_MAX characters (said beside them).
var shortened = [];

function applyParams(state, params) {
  params.forEach(function (value, urlKey) {
    var key = Object.prototype.hasOwnProperty.call(STATE_KEYS, urlKey) ? STATE_KEYS[urlKey]
      : Object.prototype.hasOwnProperty.call(URL_KEYS, urlKey) ? null : urlKey;
    if (!key || !Object.prototype.hasOwnProperty.call(READERS, key)) return;
    var v = READERS[key](value);
    if (v !== undefined) state[key] = v;
    else if (value !== '' && refused.indexOf(urlKey) < 0) refused.push(urlKey);
  });
  return state;
}

function refusedKeys() { return refused.slice(); }
function shortenedKeys() { return shortened.slice(); }

// Reads "?a=1" and "#b=2" (either may be empty); the hash wins.
function parse(search, hash) {
  refused = [];
  shortened = [];
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
    params.set(URL_KEYS[key] || key, encodeValue(key, v));
  });
  return params.toString();
}

export { refusedKeys, shortenedKeys, TEXT_MAX, parse, serialize, inventoryText, inventory as parseInventory };
