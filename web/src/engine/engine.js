// The only file that touches the wasm engine: JSON in, parsed objects out.
// A rejected request ({ok:false,error}) becomes a thrown EngineError carrying
// the engine's code, message and JSON pointer.
import { b122Decode, b8Decode, gunzipBytes, unpackBytes, unpackText } from './unpack.js';

var instance = null;
var catalogTexts = null;  // the catalog in use, for export

function EngineError(error) {
  var e = error || {};
  this.name = 'EngineError';
  this.code = e.code || 'engine_error';
  this.message = e.message || String(this.code);
  this.path = e.path || '';
}
EngineError.prototype = Object.create(Error.prototype);
EngineError.prototype.constructor = EngineError;

// The wasm binary when the build shipped it apart (LZMA, or gzip where the
// build had no decoder, written a byte a character in the single file;
// gzip 7 bits a character in engine-wasm.js); a gzip stream is compiled as
// it unpacks, from the moment this script runs (the page
// parses on meanwhile); unpacked whole first where the browser cannot
// stream.
var compiled = null;
function compileWasm() {
  var w = globalThis.CALIPER_WASM;
  if (compiled || !w || !(w.b8 || w.b122)) return compiled;
  if (w.lzma) {
    // The single file's loader starts it (web/src/loader.js).
    compiled = w.compiled || unpackBytes(w).then(function (bytes) { return WebAssembly.compile(bytes); });
    compiled.catch(function () { /* reported by init() */ });
    return compiled;
  }
  var gz = w.b8 ? b8Decode(w.b8, w.length) : b122Decode(w.b122, w.length);
  var streamed = function () {
    var body = new Blob([gz]).stream().pipeThrough(new DecompressionStream('gzip'));
    return WebAssembly.compileStreaming(new Response(body, { headers: { 'Content-Type': 'application/wasm' } }));
  };
  var whole = function () { return gunzipBytes(gz).then(function (bytes) { return WebAssembly.compile(bytes); }); };
  var canStream = typeof WebAssembly.compileStreaming === 'function' && typeof DecompressionStream === 'function';
  compiled = canStream ? Promise.resolve().then(streamed).catch(whole) : whole();
  compiled.catch(function () { /* reported by init() */ });
  return compiled;
}

// Emscripten's hook for instantiating the wasm ourselves.
function instantiateHook(module, fail) {
  return function (imports, receive) {
    module.then(function (m) {
      return WebAssembly.instantiate(m, imports).then(function (instance) { receive(instance, m); });
    }).catch(fail);
    return {};
  };
}

function init() {
  if (typeof globalThis.createCaliperEngine !== 'function') {
    return Promise.reject(new EngineError({ code: 'engine_missing', message: 'caliper-engine.js did not load' }));
  }
  return new Promise(function (resolve, reject) {
    var module = compileWasm();
    var options = module ? { instantiateWasm: instantiateHook(module, reject) } : {};
    globalThis.createCaliperEngine(options).then(function (m) {
      instance = m;
      resolve(m);
    }, reject);
  });
}

function parse(text) {
  var out;
  try { out = JSON.parse(text); } catch (e) {
    throw new EngineError({ code: 'engine_crash', message: 'the engine answered with text that is not JSON' });
  }
  if (out && out.ok === false) throw new EngineError(out.error);
  return out;
}

// The engine's byte door (wasm/API.md): texts go in and come out as UTF-8
// bytes in its memory, encoded and decoded natively; Embind's own string
// conversion walks every byte in JavaScript. The page's engine is built
// with it (scripts/build-web.js bundles the two together).
var encoder = new TextEncoder(), decoder = new TextDecoder();

function callThroughBytes(name, args) {
  for (var slot = 0; slot < args.length; slot++) {
    var bytes = encoder.encode(args[slot]);
    var buffer = instance.textInput(slot, bytes.length);
    if (!buffer) throw new EngineError({ code: 'too_large', message: 'the text is too large for the engine' });
    buffer.set(bytes);
  }
  return decoder.decode(instance.callText(name));
}

function invoke(name, args) {
  if (!instance) throw new EngineError({ code: 'engine_missing', message: 'the engine is not loaded' });
  settle();
  var text;
  try {
    text = callThroughBytes(name, args);
  } catch (e) {
    if (e instanceof EngineError) throw e;
    throw new EngineError({ code: 'engine_crash', message: String(e && e.message || e) });
  }
  return parse(text);
}

function call(name, request) {
  return invoke(name, [typeof request === 'string' ? request : JSON.stringify(request)]);
}

// Whether matrix requests may ask for cells_layout "values" (the byte door).
function takesValues() {
  return !!(instance && instance.cellValues);
}

// A matrix; with cells_layout "values" the answer's cell_values gets the
// numbers: a view of the module's memory, copied out once the next frame
// is shown or before the next call reuses that memory, whichever is first
// (the copy of a whole matrix's values stays out of the repaint).
var borrowed = null;
function settle() {
  if (borrowed) borrowed.values = new Float64Array(borrowed.values);
  borrowed = null;
}
function matrix(request) {
  var out = call('matrix', request);
  if (out.cell_values) {
    out.cell_values.values = instance.cellValues();
    borrowed = out.cell_values;
    requestAnimationFrame(function () { setTimeout(settle, 0); });
  }
  return out;
}

function loadCatalog(gpusText, modelsText) {
  var summary = invoke('loadCatalog', [gpusText, modelsText]);
  catalogTexts = { gpus: gpusText, models: modelsText };
  return summary;
}

// The built-in catalog the page carries (catalog.js): the two JSON texts,
// or both gzip-compressed and written a byte a character (the single file).
var builtIn = null;  // a promise of {gpus, models}
function pageCatalog() {
  if (builtIn) return builtIn;
  var cat = globalThis.CALIPER_CATALOG;
  if (!cat) return Promise.reject(new EngineError({ code: 'no_catalog', message: 'catalog.js did not load' }));
  builtIn = cat.b8 ? unpackText(cat).then(splitCatalog)
    : Promise.resolve({ gpus: cat.gpus, models: cat.models });
  builtIn.catch(function () { builtIn = null; });
  return builtIn;
}

// The single file's catalog: gpus.json and models.json, minified, their
// entries by column, joined by a line break (scripts/build-web.js); back
// to the two JSON texts the engine reads.
function splitCatalog(text) {
  var at = text.indexOf('\n');
  return { gpus: rowsOf(text.slice(0, at), 'gpus'), models: rowsOf(text.slice(at + 1), 'models') };
}

// {$rows, keys, columns, missing, shared, leads} (scripts/build-web.js,
// columnsOf) → the entries: shared[key] holds the texts a column's entries
// index; leads[key] = {from, except}: each list opens again with the
// `from` column's text, except in the entries listed.
function rowsOf(text, key) {
  var doc = JSON.parse(text), t = doc[key];
  if (!t || t.$rows == null) return text;
  var entries = [], shared = t.shared || {}, leads = t.leads || {};
  for (var i = 0; i < t.$rows; i++) entries.push({});
  t.keys.forEach(function (k) {
    var values = t.columns[k], gaps = t.missing[k] || [], g = 0, texts = shared[k];
    for (var j = 0; j < t.$rows; j++) {
      if (gaps[g] === j) { g++; continue; }
      var v = values[j];
      if (texts && v !== null) v = typeof v === 'number' ? texts[v] : v.map(function (n) { return texts[n]; });
      entries[j][k] = v;
    }
  });
  Object.keys(leads).forEach(function (k) {
    var from = leads[k].from, except = leads[k].except;
    entries.forEach(function (e, j) {
      if (Array.isArray(e[k]) && typeof e[from] === 'string' && except.indexOf(j) < 0) e[k].unshift(e[from]);
    });
  });
  doc[key] = entries;
  return JSON.stringify(doc);
}

function ready() { return !!instance; }
function catalogInUse() { return catalogTexts; }
function estimate(req) { return call('estimate', req); }
function recommend(req) { return call('recommend', req); }
function inventory(req) { return call('inventory', req); }
function limits(req) { return call('limits', req); }
// The serving search (docs/CONTRACT.md "Serve"); canServe() says whether
// this engine has it (the page's own always has; bench/page-bench.js asks).
function serve(req) { return call('serve', req); }
function canServe() { return !!instance && typeof instance.serve === 'function'; }
function listGpus() { return invoke('listGpus', []); }
function listModels() { return invoke('listModels', []); }
function caveats() { return invoke('caveats', []); }
function version() { settle(); return instance ? String(instance.version()) : ''; }

// The engine's description of its interface (docs/CONTRACT.md "Describe"):
// enums, defaults per task, limits, presets and matrix cell fields; null
// from an engine built before it had one.
function describe() {
  try {
    return invoke('describe', []);
  } catch (e) {
    if (e.code === 'unknown_function') return null;
    throw e;
  }
}

export { EngineError, pageCatalog, init, ready, loadCatalog, catalogInUse as catalogTexts, estimate, matrix, takesValues,
  recommend, inventory, limits, serve, canServe, listGpus, listModels, caveats, version, describe, b122Decode, b8Decode, splitCatalog };

// Unpacking starts now, while the rest of the page loads.
if (typeof document !== 'undefined') {
  compileWasm();
  if (globalThis.CALIPER_CATALOG) pageCatalog().catch(function () { /* reported when the page asks for it */ });
}
