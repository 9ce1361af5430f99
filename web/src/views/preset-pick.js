// Caliper's own pick for a scenario preset, for the note above the matrix:
// the engine's answer that the preset's Compare button opens (the serve
// view's first deployment for a preset with an SLO, the recommend view's #1
// otherwise), with the same verdict those views give. Kept until the
// request changes.
//
// A ranked preset's answer is a whole-catalog ranking (the pre-training
// preset sizes every GPU type for a 60-day run: 0.3-0.6 s of engine time),
// so it is worked out in slices between frames: the engine ranks a few GPU
// types per task, and a last call ranks the slices' firsts. Each option's
// place depends on its own figures only (answers/recommend.cpp sorts by the
// objective's figure), so the first of the firsts is the whole ranking's
// first: the same GPU, count and verdict as one call over every GPU.
import * as customRows from '../state/custom-rows.js';
import * as engine from '../engine/engine.js';
import * as i18n from '../i18n/i18n.js';
import * as presets from '../state/presets.js';
import * as recommendView from './recommend.js';
import * as serveView from './serve.js';
import { toRecommendRequest, toServeRequest } from '../state/requests.js';

var SLICE_GPUS = 2;     // GPU types per engine call
var TASK_BUDGET_MS = 8;  // engine time per task before the page gets the thread back

var last = { key: null, pick: null };
var job = null;  // the slices under way: {key, cancelled}

// The pick for preset p in state s: done(pick) with {text, agree, gpu}, or
// null where the engine gives no first (nothing fits, or it refused the
// request). Called at once where the pick is known; otherwise after the
// slices have run, unless another request replaced this one meanwhile.
function pick(s, p, done) {
  var serving = !!presets.sloOf(p);
  var req;
  if (serving) {
    req = toServeRequest(s, serveView.currentModel(s), []);
  } else {
    req = toRecommendRequest(s, s.rm ? customRows.modelRef(s, s.rm) : undefined, p.id);
  }
  req.preset = p.id;
  var key = JSON.stringify([i18n.lang(), req]);
  if (key === last.key) { done(last.pick); return; }
  if (job && job.key === key) { job.done = done; return; }
  if (job) job.cancelled = true;
  var mine = { key: key, cancelled: false, done: done };
  job = mine;
  var finish = function (out) {
    if (mine.cancelled) return;
    job = null;
    last = { key: key, pick: out };
    mine.done(out);
  };
  if (serving) {
    finish(attempt(function () { return servingPick(engine.recommend(req)); }));
    return;
  }
  var gpus = attempt(function () { return gpuIds(req); });
  if (!gpus) { finish(attempt(function () { return rankedPick(engine.recommend(req)); })); return; }
  slices(req, gpus, mine, function (firsts) {
    finish(firsts.length ? attempt(function () { return rankedPick(engine.recommend(Object.assign({}, req, { gpu: firsts }))); }) : null);
  });
}

function attempt(run) {
  try { return run(); } catch (e) { return null; }
}

// The GPU types the ranking covers: the request's own selection, as the
// engine resolves it (a matrix with no model answers its GPU list).
function gpuIds(req) {
  var sel = { model: [] };
  if (req.gpu != null) sel.gpu = req.gpu;
  if (req.gpu_filter) sel.gpu_filter = req.gpu_filter;
  return engine.matrix(sel).gpus.map(function (g) { return g.id; });
}

// Ranks the GPUs a slice at a time, yielding the thread between tasks;
// then(firsts) with each slice's first GPU type.
function slices(req, gpus, mine, then) {
  var firsts = [], i = 0;
  function step() {
    if (mine.cancelled) return;
    var start = performance.now();
    do {
      var answer = attempt(function () { return engine.recommend(Object.assign({}, req, { gpu: gpus.slice(i, i + SLICE_GPUS) })); });
      var first = answer && recommendView.presetVerdict(answer).first;
      if (first && firsts.indexOf(first.gpu_id) < 0) firsts.push(first.gpu_id);
      i += SLICE_GPUS;
    } while (i < gpus.length && performance.now() - start < TASK_BUDGET_MS);
    if (i < gpus.length) setTimeout(step, 0); else then(firsts);
  }
  setTimeout(step, 0);
}

function rankedPick(r) {
  var v = recommendView.presetVerdict(r);
  if (!v.first) return null;
  return { gpu: v.first.gpu_id, agree: v.agree,
    text: i18n.t('preset.caliperPick', { n: v.first.gpu_count, gpu: v.first.gpu_name }) + gap() + v.text };
}

// A serving answer's verdict already names the first deployment; where
// none meets the SLO, the closest one is named as such.
function servingPick(answer) {
  var v = serveView.presetVerdict(answer);
  if (v) return { gpu: v.best.gpu, agree: v.agree, text: v.text };
  var best = (answer.deployments || [])[0];
  return best ? { gpu: best.gpu, agree: false, text: i18n.t('preset.caliperClosest', { n: best.gpu_count, gpu: best.gpu_name || best.gpu }) } : null;
}

// Between sentences: a space in English, none after a Chinese full stop.
function gap() { return i18n.lang() === 'zh' ? '' : ' '; }

export { pick, gap };
