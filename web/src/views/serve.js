// The serve view (#view=serve): "N users at Y tokens/s each, first token
// within Z s": the engine's serving search (engine.serve, docs/CONTRACT.md
// "Serve") ranks the deployments that meet the SLO, and the frontier chart
// shows the first one's throughput against interactivity. Pure helpers
// (rows) are tested in Node with an answer of the contract's shape.
import * as dom from '../dom/dom.js';
import * as engine from '../engine/engine.js';
import * as exporter from '../export/export.js';
import * as format from '../format/format.js';
import * as frontier from './frontier.js';
import * as i18n from '../i18n/i18n.js';
import { GROUPS, currencyOf } from '../state/defaults.js';
import * as presets from '../state/presets.js';
import { toServeRequest } from '../state/requests.js';
import { pickGpus } from '../state/search.js';

var $ = dom.$, el = dom.el;
var ctx = null;
var DEFAULT_MODEL = 'llama-3.1-8b';
var DEBOUNCE_MS = 160;
var NAMED_TOP = 100;  // the engine's largest top (describe().limits.top)
var pending = {};
var lastKey = '';

// Number fields: id → [state key, min, max, optional, whole]
var FIELDS = {
  // Users are whole (docs/CONTRACT.md "Serve": 5.5 is invalid_value at /users).
  'sv-users': ['su', 1, 1e7, false, true], 'sv-rate': ['sr', 0.001, 1e6, true, false],
  'sv-tps': ['stps', 0.01, 1e5, true, false], 'sv-ttft': ['sttft', 0.001, 3600, true, false],
  'sv-tpot': ['stpot', 0.01, 60000, true, false], 'sv-in': ['spi', 1, 1e7, false, true], 'sv-out': ['spo', 1, 1e7, false, true]
};

function init(options) {
  ctx = options;
  $('#sv-model').addEventListener('change', function (e) { ctx.change({ sm: e.target.value }); });
  $('#sv-class').addEventListener('change', function (e) { ctx.change({ scls: e.target.value ? [e.target.value] : [] }); });
  $('#sv-dis').addEventListener('change', function (e) { ctx.change({ sdis: e.target.value }); });
  // The names to compare commit on change (Enter or leaving the box), never per keystroke.
  $('#sv-gpus').addEventListener('change', function (e) { ctx.change({ sgq: e.target.value.trim().slice(0, 200) }); });
  Object.keys(FIELDS).forEach(function (id) {
    var input = $('#' + id), timer = null;
    input.addEventListener('input', function () {
      clearTimeout(timer);
      pending[id] = true;
      timer = setTimeout(function () { delete pending[id]; onNumber(id); }, DEBOUNCE_MS);
    });
    input.addEventListener('change', function () { clearTimeout(timer); delete pending[id]; onNumber(id); });
  });
  $('#serve-form').addEventListener('submit', function (e) { e.preventDefault(); });
}

function parseField(id, text) {
  var spec = FIELDS[id], v = format.parseInput(text);
  if (v === null) return spec[3] ? null : undefined;
  if (!isFinite(v) || v < spec[1] || v > spec[2] || (spec[4] && !Number.isInteger(v))) return undefined;
  return v;
}

function onNumber(id) {
  var input = $('#' + id), spec = FIELDS[id];
  var v = parseField(id, input.value);
  if (v === undefined) {
    dom.fieldError(input, spec[4] ? ctx.t('error.wholeNumber', { min: spec[1], max: format.number(i18n.locale(), spec[2], 0) })
      : ctx.t('serve.badNumber', { min: spec[1], max: format.number(i18n.locale(), spec[2], 0) }));
    return;
  }
  dom.fieldError(input, null);
  var patch = {};
  patch[spec[0]] = v;
  if (JSON.stringify(ctx.app.state[spec[0]]) !== JSON.stringify(v)) ctx.change(patch);
}

// Token-generating models only: serve refuses speech, embedding and
// diffusion models (their own pipelines have no TTFT or TPOT).
function servable(m) { return !m.workload || m.workload === 'llm'; }

function currentModel(s) {
  if (s.sm) return s.sm;
  var models = ctx.app.models.filter(servable);
  return models.some(function (m) { return m.id === DEFAULT_MODEL; }) ? DEFAULT_MODEL : models.length ? models[0].id : '';
}

function refreshLists(models) {
  var groups = [], byFamily = {};
  models.filter(servable).forEach(function (m) {
    if (!byFamily[m.family]) { byFamily[m.family] = { label: m.family, options: [] }; groups.push(byFamily[m.family]); }
    byFamily[m.family].options.push({ value: m.id, label: m.name });
  });
  dom.fillSelect($('#sv-model'), groups, currentModel(ctx.app.state));
  dom.fillSelect($('#sv-class'), [{ value: '', label: ctx.t('serve.allClasses') }].concat(GROUPS.map(function (g) {
    return { value: g, label: ctx.t('group.' + g) };
  })), ctx.app.state.scls[0] || '');
  lastKey = '';
}

// The money figure of a deployment in the currency in force: the engine's
// cny twin where it gives one (cny_per_month), else its rate.
// withBand: the figure's 80% band after it, scaled from the dollar band to
// the currency shown (ranges are per figure, docs/CONTRACT.md "Serve").
function money(d, usdKey, currency, rate, locale, withBand) {
  var m = format.moneyField(d, usdKey, currency, rate);
  if (m.value == null) return '—';
  var text = format.money(locale, m.value, m.currency), scale = m.value / d[usdKey];
  return withBand ? text + band(d, usdKey, function (x) { return format.money(locale, x * scale, m.currency); }) : text;
}

// A figure's 80% band in the deployment's (or curve point's) ranges, as the
// detail view writes it: " (18–23)".
function band(d, key, text) { return format.bandText(format.bandOf(d.ranges, key), text); }

// Meets the SLO by the estimate, not across its 80% band (slo_margin
// "tight"): the matrix's and detail's tight symbol.
var SYMBOL_TIGHT = '≈';

// A deployment's layout: TP x PP and replicas, or its prefill and decode
// replicas when they are split.
function planText(d, t) {
  var plan = d.plan || {}, split = d.disaggregated;
  if (split) {
    return t('serve.disaggText', { p: split.prefill_replicas, pg: split.prefill_gpus_per_replica, d: split.decode_replicas,
      dg: split.decode_gpus_per_replica });
  }
  return t('serve.planText', { tp: plan.tp || 1, pp: plan.pp || 1, replicas: d.replicas || 1 });
}

// The deployments to list: the first `top` of the ranking, then, for each
// GPU the reader named that has none among them, its best-ranked one (the
// cards put in "GPUs to compare" always show). [{d, rank, named}]
function shownDeployments(deployments, top, namedIds) {
  var list = deployments || [], out = [], seen = {};
  list.forEach(function (d, i) {
    if (i < top) { out.push({ d: d, rank: i + 1, named: false }); seen[d.gpu] = true; }
  });
  (namedIds || []).forEach(function (id) {
    if (seen[id]) return;
    for (var i = top; i < list.length; i++) {
      if (list[i].gpu === id) { out.push({ d: list[i], rank: i + 1, named: true }); seen[id] = true; return; }
    }
  });
  return out.sort(function (a, b) { return a.rank - b.rank; });
}

// NVIDIA's consumer cards: their driver licence forbids data-centre
// deployment (nvidia.com/en-us/drivers/geforce-license), so a service
// built on them is marked. gpus: the catalog's entries (class, vendor).
function isGeForce(id, gpus) {
  var g = (gpus || []).filter(function (x) { return x.id === id; })[0];
  return !!g && g.vendor === 'nvidia' && g['class'] === 'consumer';
}

// The classes the preset narrows the ranking to when the reader chose none
// (its request's gpu_filter, which the engine fills in).
function presetClasses(p, s) {
  var f = p && p.request && p.request.gpu_filter;
  return f && Array.isArray(f.classes) && !s.scls.length ? f.classes : null;
}

function hasWhy(d, code) { return Array.isArray(d.why) && d.why.indexOf(code) >= 0; }

// One table row of texts per deployment. opts: {t, locale, currency, cnyPerUsd, pricing, units};
// answer.deployments may be a selection, opts.ranks then their places in the ranking.
function rows(answer, opts) {
  var t = opts.t, L = opts.locale;
  var perM = opts.pricing === 'purchase' ? 'purchase_usd_per_million_output_tokens' : 'usd_per_million_output_tokens';
  var num = function (x) { return format.number(L, x); };
  var secs = function (x) { return format.seconds(L, x, opts.units); };
  return (answer.deployments || []).map(function (d, i) {
    var s = d.serving || {};
    var rank = opts.ranks ? opts.ranks[i] : i + 1;
    var tight = !!d.meets_slo && d.slo_margin === 'tight';
    return {
      rank: rank, gpu: d.gpu, meets: !!d.meets_slo, tight: tight,
      // Why the search shaped it so (deployment why codes), on the plan's cell.
      why: (Array.isArray(d.why) ? d.why : []).map(function (c) { return i18n.code('why', c); }).join(t('list.sep')),
      cells: [
        String(rank),
        (d.gpu_name || d.gpu) + (isGeForce(d.gpu, opts.gpus) ? ' †' : ''),
        t('serve.gpus', { n: d.gpu_count }),
        planText(d, t) + (hasWhy(d, 'fp8_weights_more_users') ? ' · ' + t('serve.fp8Weights') : '') +
          (hasWhy(d, 'int4_weights_quality_trade') ? ' · ' + t('serve.int4Weights') : '') + (d.kv_cache === 'fp8' ? ' · FP8 KV' : ''),
        format.number(L, d.concurrency_per_replica, 0),
        format.isNum(s.user_tokens_per_s) ? format.number(L, s.user_tokens_per_s) + ' ' + t('unit.tokPerS') + band(d, 'serving.user_tokens_per_s', num) : '—',
        format.seconds(L, s.ttft_s, opts.units) + (format.isNum(s.ttft_s) ? band(d, 'serving.ttft_s', secs) : ''),
        format.isNum(s.tpot_ms) ? format.number(L, s.tpot_ms) + ' ' + t('unit.ms') + band(d, 'serving.tpot_ms', num) : '—',
        money(d, 'usd_per_month', opts.currency, opts.cnyPerUsd, L),
        money(d, perM, opts.currency, opts.cnyPerUsd, L, true),
        d.meets_slo ? (tight ? SYMBOL_TIGHT : '✓') : '✗'
      ]
    };
  });
}

var HEADERS = ['serve.rank', 'serve.gpu', 'serve.count', 'serve.plan', 'serve.perReplica', 'serve.userTps', 'serve.ttft',
  'serve.tpot', 'serve.perMonth', 'serve.perMTok', 'serve.meets'];
var NUMERIC = [0, 4, 5, 6, 7, 8, 9];

function table(list, opts) {
  var head = el('tr', null, HEADERS.map(function (k, i) {
    return el('th', { scope: 'col', class: NUMERIC.indexOf(i) >= 0 ? 'num' : null }, opts.t(k));
  }));
  var body = list.map(function (r) {
    var cls = (r.meets ? 'meets' : 'misses') + (r.named ? ' named' : '');
    return el('tr', { class: cls, dataset: { gpuId: r.gpu, rank: r.rank } }, r.cells.map(function (c, i) {
      return el(i === 1 ? 'th' : 'td', { scope: i === 1 ? 'row' : null,
        class: NUMERIC.indexOf(i) >= 0 ? 'num' : i === 10 ? (r.tight ? 'tight' : r.meets ? 'yes' : 'no') : null,
        title: i === 3 && r.why ? r.why : i === 10 && r.tight ? opts.t('serve.tight') : null, dataset: i === 1 ? null : { label: opts.t(HEADERS[i]) } }, c);
    }));
  });
  return el('table', { class: 'plain serve-table', id: 'serve-table' }, [el('thead', null, head), el('tbody', null, body)]);
}

// Under the table: what the brackets are, and the tight symbol where a row has it.
function bandNotes(shown, list, t) {
  var banded = shown.some(function (x) { return x.d.ranges && Object.keys(x.d.ranges).length; });
  var tight = list.some(function (r) { return r.tight; });
  if (!banded && !tight) return null;
  return el('p', { class: 'note', id: 'serve-bands' }, [banded ? t('detail.bandNote') : '',
    tight ? (banded ? ' ' : '') + SYMBOL_TIGHT + ' ' + t('serve.tight') : '']);
}

// The answer in one sentence: the first deployment, what each user gets and,
// where it is priced, its month and its cost per million output tokens.
// opts: {currency, cnyPerUsd, pricing}; without it, dollars at cloud prices.
function verdictText(answer, s, t, L, opts) {
  var load = s.sr != null ? t('serve.rate', { n: format.number(L, s.sr) }) : t('serve.users', { n: format.number(L, s.su, 0) });
  var best = (answer.deployments || [])[0];
  if (!best) return t('serve.none');
  var key = answer.meets_slo === false ? 'serve.closest' : 'serve.best';
  var o = opts || {};
  var currency = o.currency || 'usd';
  var month = money(best, 'usd_per_month', currency, o.cnyPerUsd, L);
  var perM = money(best, o.pricing === 'purchase' ? 'purchase_usd_per_million_output_tokens' : 'usd_per_million_output_tokens',
    currency, o.cnyPerUsd, L);
  var cost = month === '—' || perM === '—' ? '' : t('serve.costs', { month: month, perM: perM });
  return t(key, { load: load, n: best.gpu_count, gpu: best.gpu_name || best.gpu, cost: cost,
    user: best.serving && format.isNum(best.serving.user_tokens_per_s) ? format.number(L, best.serving.user_tokens_per_s) : '—' });
}

// The scenario preset with a service level that the state matches (the
// serving preset), unless the reader named GPUs to compare: its answer
// (recommend with the preset) adds the source document's picks.
function servingPreset(s) {
  var p = presets.byId(presets.matching(s, ctx.app.models));
  return presets.sloOf(p) && !s.sgq ? p : null;
}

// The source document's picks beside the search's first deployment: each
// pick's best deployment within the SLO (or the closest), then whether the
// two agree. opts: as rows'.
function presetNote(answer, t, L, opts) {
  var p = answer.preset;
  if (!p) return null;
  var reason = i18n.has('preset.reason.' + p.id) ? t('preset.reason.' + p.id) : p.document_reason;
  var head = el('p', null, t('rec.documentPicks', { preset: i18n.lang() === 'zh' ? p.label_zh : p.label_en,
    picks: p.document_picks, reason: reason }));
  var items = (p.document_pick_deployments || []).map(function (d) {
    return el('li', { dataset: { gpuId: d.gpu, meets: String(!!d.meets_slo) } }, t(d.meets_slo ? 'serve.docMeets' : 'serve.docMisses',
      { n: d.gpu_count, gpu: d.gpu_name || d.gpu, month: money(d, 'usd_per_month', opts.currency, opts.cnyPerUsd, L) }));
  });
  var v = presetVerdict(answer);
  var verdict = v ? el('p', { class: 'preset-verdict', dataset: { agree: String(v.agree) } }, v.text) : null;
  return el('div', { class: 'panel preset-note', id: 'serve-preset' }, [head, items.length ? el('ul', { class: 'list' }, items) : null, verdict]);
}

// Whether the first deployment, where it meets the SLO, is on one of the
// preset's document picks, and that verdict as a sentence (null when none
// meets it): the serve view's note and the matrix's scenario note say the same.
function presetVerdict(answer) {
  var best = (answer.deployments || [])[0];
  if (!best || !best.meets_slo) return null;
  var agree = ((answer.preset && answer.preset.document_pick_gpus) || []).indexOf(best.gpu) >= 0;
  return { best: best, agree: agree,
    text: i18n.t(agree ? 'serve.docAgree' : 'serve.docDiffer', { n: best.gpu_count, gpu: best.gpu_name || best.gpu }) };
}

// The GPUs the reader named that the answer does not list (the list not
// cut short by its length, and not left out for want of a speed): no
// deployment of them within the GPU limit carries the load.
function missingNote(ids, answer, top, t, s) {
  var listed = (answer.deployments || []).map(function (d) { return d.gpu; });
  if (!ids.length || listed.length >= top) return null;
  var unknown = Array.isArray(answer.speed_unknown) ? answer.speed_unknown : [];
  var names = ids.filter(function (id) { return listed.indexOf(id) < 0 && unknown.indexOf(id) < 0; }).map(function (id) {
    var g = (ctx.app.gpus || []).filter(function (x) { return x.id === id; })[0];
    return g ? g.name : id;
  });
  if (!names.length) return null;
  return el('p', { class: 'note', id: 'serve-missing' }, t('serve.gpusMissing', { names: names.join(t('list.sep')), n: s.g }));
}

// A warning in the page's language; the GPUs left out for want of a speed
// are named from the answer's ids (speed_unknown), as the catalog names them.
function warningText(w, answer, t) {
  var ids = Array.isArray(answer.speed_unknown) ? answer.speed_unknown : [];
  if (w.code !== 'speed_unknown' || !ids.length) return i18n.code('warn', w.code, w.message);
  var names = ids.map(function (id) {
    var g = (ctx.app.gpus || []).filter(function (x) { return x.id === id; })[0];
    return g ? g.name : id;
  });
  return t('serve.speedUnknown', { names: names.join(t('list.sep')) });
}

function syncFields(s) {
  Object.keys(FIELDS).forEach(function (id) {
    var input = $('#' + id);
    if (pending[id] || (document.activeElement === input)) return;
    var v = s[FIELDS[id][0]];
    var text = v == null ? '' : String(v);
    if (input.value !== text) input.value = text;
  });
  $('#sv-model').value = currentModel(s);
  $('#sv-class').value = s.scls[0] || '';
  $('#sv-dis').value = s.sdis;
  var gpus = $('#sv-gpus');
  if (document.activeElement !== gpus && gpus.value !== s.sgq) gpus.value = s.sgq;
}

function render() {
  var t0 = performance.now();
  var s = ctx.app.state;
  syncFields(s);
  var preset = servingPreset(s);
  var key = JSON.stringify([s.sm, s.su, s.sr, s.sttft, s.stpot, s.stps, s.spi, s.spo, s.scls, s.sdis, s.sgq, s.g, s.pr, s.top, s.eng, s.w,
    currencyOf(s, i18n.lang()), i18n.lang(), ctx.app.catalogGeneration, s.cm, preset && preset.id]);
  if (key === lastKey) return;
  lastKey = key;
  var out = $('#serve-results'), L = i18n.locale(), t = ctx.t;
  var units = { ms: t('unit.ms'), s: t('unit.s'), min: t('unit.min'), h: t('unit.h'), d: t('unit.d'), y: t('unit.y') };
  var answer;
  var picked = s.sgq ? pickGpus(ctx.app.gpus || [], s.sgq) : { ids: [], unmatched: [] };
  var unmatched = picked.unmatched.length
    ? el('p', { class: 'note', id: 'serve-unmatched' }, t('serve.gpusUnmatched', { names: picked.unmatched.join(t('list.sep')) })) : null;
  if (s.sgq && !picked.ids.length) {
    dom.replace(out, unmatched);
    ctx.setStatus('');
    return;
  }
  // With named GPUs, every deployment of theirs (the engine's largest
  // top), so each named card shows even when it ranks below the first N.
  var req = toServeRequest(s, currentModel(s), picked.ids);
  if (picked.ids.length) req.top = NAMED_TOP;
  if (preset) req.preset = preset.id;
  try {
    answer = preset ? engine.recommend(req) : engine.serve(req);
  } catch (e) {
    dom.replace(out, el('p', { class: 'panel note error', title: i18n.errorDetail(e) || null },
      i18n.errorText(e) + (e.path ? t('error.at', { path: e.path }) : '')));
    ctx.setStatus('');
    return;
  }
  if (typeof answer.cny_per_usd === 'number') ctx.app.cnyPerUsd = answer.cny_per_usd;
  var opts = { t: t, locale: L, currency: currencyOf(s, i18n.lang()), cnyPerUsd: ctx.app.cnyPerUsd, pricing: s.pr, units: units,
    gpus: ctx.app.gpus };
  var shown = shownDeployments(answer.deployments, s.top, picked.ids);
  var list = rows({ deployments: shown.map(function (x) { return x.d; }) }, Object.assign({ ranks: shown.map(function (x) { return x.rank; }) }, opts));
  list.forEach(function (r, i) { r.named = shown[i].named; });
  var named = shown.filter(function (x) { return x.named; }).length
    ? el('p', { class: 'note', id: 'serve-named' }, t('serve.namedNote', { n: s.top })) : null;
  var geforce = list.some(function (r) { return isGeForce(r.gpu, opts.gpus); })
    ? el('p', { class: 'note', id: 'serve-geforce' }, t('serve.geforce')) : null;
  var classes = presetClasses(preset, s) ? el('p', { class: 'note', id: 'serve-classes' }, t('serve.presetClasses')) : null;
  var missing = missingNote(picked.ids, answer, req.top, t, s);
  var readout = el('p', { class: 'note readout', id: 'serve-readout', 'aria-live': 'polite' }, t('serve.readoutHint'));
  var best = (answer.deployments || [])[0];
  var title = best ? t('serve.chartTitle', { n: best.gpu_count, gpu: best.gpu_name || best.gpu, model: (answer.model && answer.model.name) || '' }) : '';
  var width = Math.min(760, ($('#serve-results').clientWidth || 760) - 28);
  var svg = (answer.curve || []).length ? frontier.frontierChart(answer.curve, answer.slo, { t: t, locale: L, units: units, title: title,
    id: 'serve-chart', width: width, onPoint: function (text) { readout.textContent = text; } }) : null;
  var name = 'caliper-frontier-' + (answer.model && answer.model.id) + '-' + (best && best.gpu);
  var tools = svg ? el('div', { class: 'chart-tools' }, [
    el('button', { type: 'button', class: 'btn small', id: 'serve-svg', onclick: function () { exporter.svg(svg, name); } }, t('export.svg')),
    el('button', { type: 'button', class: 'btn small', id: 'serve-png', onclick: function () { exporter.png(svg, name); } }, t('export.png'))]) : null;
  // slo_not_met is the verdict's own sentence (closest ones, or none that fit).
  var warn = (answer.warnings || []).filter(function (w) { return w.code !== 'slo_not_met'; }).map(function (w) {
    return el('li', { dataset: { code: w.code }, title: w.message }, warningText(w, answer, t));
  });
  dom.replace(out, [
    unmatched, missing,
    el('p', { class: 'serve-verdict ' + (answer.meets_slo === false ? 'misses' : 'meets'), id: 'serve-verdict' }, verdictText(answer, s, t, L, opts)),
    presetNote(answer, t, L, opts),
    list.length ? el('div', { class: 'panel table-scroll' }, [classes, table(list, opts), named, geforce, bandNotes(shown, list, t)]) : null,
    svg ? el('div', { class: 'panel' }, [el('h3', null, t('serve.frontier')), el('p', { class: 'note' }, t('serve.frontierNote')), svg, readout, tools]) : null,
    warn.length ? el('ul', { class: 'list warn-list' }, warn) : null]);
  ctx.setStatus('');
  var timings = window.__caliperTimings;
  if (timings) timings.serveRepaintMs = Math.round((performance.now() - t0) * 10) / 10;
}

export { init, render, refreshLists, rows, shownDeployments, verdictText, isGeForce, presetVerdict, currentModel };
