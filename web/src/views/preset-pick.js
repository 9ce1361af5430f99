// Caliper's own pick for a scenario preset, for the note above the matrix:
// the engine's answer that the preset's Compare button opens (the serve
// view's first deployment for a preset with an SLO, the recommend view's #1
// otherwise), with the same verdict those views give. One engine call per
// request, kept until the request changes.
import * as customRows from '../state/custom-rows.js';
import * as engine from '../engine/engine.js';
import * as i18n from '../i18n/i18n.js';
import * as presets from '../state/presets.js';
import * as recommendView from './recommend.js';
import * as serveView from './serve.js';
import { toRecommendRequest, toServeRequest } from '../state/requests.js';

var last = { key: null, pick: null };

// {text, agree, gpu} for preset p in state s, or null where the engine
// gives no first (nothing fits, or the engine refused the request).
function pick(s, p) {
  var serving = !!presets.sloOf(p);
  var req;
  if (serving) {
    if (!engine.canServe()) return null;
    req = toServeRequest(s, serveView.currentModel(s), []);
  } else {
    req = toRecommendRequest(s, s.rm ? customRows.modelRef(s, s.rm) : undefined, p.id);
  }
  req.preset = p.id;
  var key = JSON.stringify([i18n.lang(), req]);
  if (key === last.key) return last.pick;
  var out = null;
  try {
    var answer = engine.recommend(req);
    out = serving ? servingPick(answer) : rankedPick(answer);
  } catch (e) {
    out = null;
  }
  last = { key: key, pick: out };
  return out;
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
