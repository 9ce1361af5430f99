// "What should I buy or rent?": engine.recommend's ranked configurations for
// one model, and a side-by-side comparison of up to three GPUs (one
// engine.estimate each).
import * as cells from '../matrix/cells.js';
import * as chart from './chart.js';
import * as customRows from '../state/custom-rows.js';
import * as detailView from './detail.js';
import * as dom from '../dom/dom.js';
import * as engine from '../engine/engine.js';
import * as format from '../format/format.js';
import * as i18n from '../i18n/i18n.js';
import * as presets from '../state/presets.js';
import { currencyOf, isTraining } from '../state/defaults.js';
import { toEstimateRequest, toRecommendRequest } from '../state/requests.js';

var $ = dom.$, el = dom.el;
var ctx = null;
var DEFAULT_MODEL = 'llama-3.1-8b';

function init(options) {
  ctx = options;
  $('#rec-model').addEventListener('change', function (e) { ctx.change({ rm: e.target.value }); });
  $('#objective').addEventListener('change', function (e) { ctx.change({ obj: e.target.value }); });
  $('#rec-top').addEventListener('change', function (e) { ctx.change({ top: Number(e.target.value) }); });
  $('#pricing').addEventListener('change', function (e) { ctx.change({ pr: e.target.value }); });
  [1, 2, 3].forEach(function (n) { $('#cmp-' + n).addEventListener('change', onCompare); });
  $('#rec-form').addEventListener('submit', function (e) { e.preventDefault(); });
  $('#cmp-form').addEventListener('submit', function (e) { e.preventDefault(); });
}

// Unset slots are '-' so the URL keeps positions; all unset = none shown.
function onCompare() {
  var ids = [1, 2, 3].map(function (n) { return $('#cmp-' + n).value || '-'; });
  while (ids.length && ids[ids.length - 1] === '-') ids.pop();
  ctx.change({ cmp: ids.length ? ids : ['-'] });
}

function modelOptions(models) {
  var groups = [], byFamily = {};
  models.forEach(function (m) {
    if (!byFamily[m.family]) { byFamily[m.family] = { label: m.family, options: [] }; groups.push(byFamily[m.family]); }
    byFamily[m.family].options.push({ value: m.id, label: m.name });
  });
  return groups;
}

function refreshLists(models, gpus) {
  var s = ctx.app.state;
  var items = modelOptions(models);
  if (s.cm) items.unshift({ value: customRows.MODEL_ID, label: s.cm.name });
  dom.fillSelect($('#rec-model'), items, currentModel(s));
  var gpuItems = [{ value: '', label: ctx.t('cmp.none') }];
  if (s.cg) gpuItems.push({ value: customRows.GPU_ID, label: s.cg.name });
  gpuItems = gpuItems.concat(gpus.map(function (g) { return { value: g.id, label: g.name }; }));
  [1, 2, 3].forEach(function (n) { dom.fillSelect($('#cmp-' + n), gpuItems, ''); });
}

function currentModel(s) {
  if (s.rm) return s.rm;
  var models = ctx.app.models;
  var known = models.some(function (m) { return m.id === DEFAULT_MODEL; });
  return known ? DEFAULT_MODEL : models.length ? models[0].id : '';
}

function figure(label, text) {
  return text == null || text === '—' ? null : el('span', null, [label + ' ', el('b', null, text)]);
}

function moneyText(obj, key, s, suffix) {
  var m = format.moneyField(obj, key, currencyOf(s, i18n.lang()), ctx.app.cnyPerUsd);
  return m.value == null ? null : format.money(i18n.locale(), m.value, m.currency) + (suffix || '');
}

// all: every option shown (a reason may compare this one with another).
function optionItem(o, s, modelId, all) {
  var L = i18n.locale(), t = ctx.t;
  var training = isTraining(s);
  var speed = training ? o.train_tokens_per_s : o.decode_tokens_per_s;
  // A speech, embedding or diffusion model's own figures (its real-time
  // factor, ...), as the detail shows them.
  var own = detailView.workloadFigures(o, { locale: L, t: t }).map(function (f) { return figure(t(f[0]), f[1]); });
  var figs = el('div', { class: 'rec-figs' }, [
    figure(t('detail.memory'), format.gib(L, o.total_gib))].concat(own, [
    figure(training ? t('fig.train') : t('fig.decode'), speed == null ? null : format.number(L, speed) + ' ' + t('unit.tokPerS')),
    // Serving: what each of the batch's requests gets, and a month of it.
    figure(t('fig.userSpeed'), o.user_tokens_per_s == null ? null : format.number(L, o.user_tokens_per_s) + ' ' + t('unit.tokPerS')),
    figure(t('fig.perMonth'), moneyText(o, 'usd_per_month', s)),
    figure(t('fig.trainHours'), o.train_hours == null ? null : format.duration(L, o.train_hours, detailView.unitTexts(t))),
    figure(t('fig.usdPerHour'), moneyText(o, 'usd_per_hour', s, t('unit.perHour'))),
    figure(t('fig.purchase'), moneyText(o, 'purchase_usd', s)),
    figure(training ? t('fig.cost') : t('fig.perMTok'), moneyText(o, training ? 'cost_usd' : 'usd_per_million_tokens', s)),
    figure(t('fig.power'), o.power_w == null ? null : format.power(L, o.power_w))]));
  var notes = el('div', { class: 'rec-notes' }, [notesList(t('rec.reasons'), o.reasons, function (i) { return reasonText(i, o, s, all); }, '',
    // A reason the page writes from the option's figures (in the currency
    // in force) has no use for the engine's dollar text as its title.
    function (i) { return reasonText(i, o, s, all) === i18n.code('reason', i.code, i.message); }),
  notesList(t('rec.watch'), o.watch, watchText, 'warn-list')]);
  var meta = [t('strategy.' + o.strategy)];
  if (o.weights) meta.unshift(String(o.weights).toUpperCase());
  if (o.nodes > 1) meta.push(t('rec.nodes', { n: o.nodes }));
  var details = el('button', { type: 'button', class: 'btn small', onclick: function () {
    ctx.change({ cell: modelId + '~' + o.gpu_id, cnt: o.gpu_count });
  } }, t('rec.details'));
  return el('li', { class: 'panel rec-item', dataset: { gpuId: o.gpu_id, rank: o.rank } }, [
    el('div', { class: 'rec-rank' }, '#' + o.rank),
    el('div', { class: 'rec-main' }, [
      el('h3', null, [t('rec.config', { n: o.gpu_count, gpu: o.gpu_name }), ' ',
        el('span', { class: 'badge tier-' + o.tier }, t('tier.' + o.tier))]),
      el('div', { class: 'rec-meta' }, meta.join(' · ')), figs, notes]),
    details]);
}

// text(item): the item in the page's language; the engine's English
// message stays as the title.
// keepTitle(item): whether the engine's message is worth a title (default yes).
function notesList(title, items, text, cls, keepTitle) {
  if (!items || !items.length) return null;
  return el('div', null, [el('strong', null, title), el('ul', { class: 'list ' + cls }, items.map(function (i) {
    return el('li', { title: !keepTitle || keepTitle(i) ? i.message : null, dataset: { code: i.code } }, text(i));
  }))]);
}

// Catalog caveats carry their own Chinese text (message_zh); engine codes
// are translated by code, with the English message as the fallback.
function watchText(i) {
  return i18n.lang() === 'zh' && i.message_zh ? i.message_zh : i18n.code('warn', i.code, i.message);
}

// Why an option is listed, by the reason's code, with the option's own
// figures in the page's currency; an unknown code keeps the engine's text.
function reasonText(reason, o, s, all) {
  var t = ctx.t, L = i18n.locale(), training = isTraining(s);
  var speed = function (x) {
    var v = training ? x.train_tokens_per_s : x.decode_tokens_per_s;
    return v == null ? null : format.number(L, v, 0) + ' ' + t('unit.tokPerS');
  };
  var params = null, key = null;
  switch (reason.code) {
    case 'fits':
      key = o.needed_gib < o.total_gib ? 'reason.fitsPooled' : 'reason.fits';
      params = { n: o.gpu_count, gpu: o.gpu_name, needed: format.gib(L, o.needed_gib), usable: format.gib(L, o.usable_gib) };
      break;
    case 'cheapest': {
      var how = cheapestBy(s.pr, training, o);
      key = 'reason.cheapest' + how;
      params = { price: how === 'Buy' ? moneyText(o, 'purchase_usd', s)
        : how === 'Run' ? moneyText(o, 'cost_usd', s) : moneyText(o, 'usd_per_hour', s, t('unit.perHour')) };
      break;
    }
    case 'fastest':
      key = training ? 'reason.fastestTrain' : 'reason.fastestDecode';
      params = { speed: speed(o) };
      break;
    case 'lowest_cost_per_token':
      key = training ? 'reason.perTokenTrain' : 'reason.perTokenDecode';
      params = { price: moneyText(o, 'usd_per_million_tokens', s) };
      break;
    case 'lowest_power': key = 'reason.lowestPower'; params = { power: format.power(L, o.power_w) }; break;
    case 'single_gpu': key = 'reason.singleGpu'; params = {}; break;
    case 'fewest_gpus': key = 'reason.fewestGpus'; params = { n: o.gpu_count }; break;
    case 'nvlink': key = 'reason.nvlink'; params = { n: o.gpu_count, link: linkName(gpuOf(o.gpu_id)) }; break;
    case 'scaled_out': {
      var base = all.filter(function (x) { return x.gpu_id === o.gpu_id && 2 * x.gpu_count === o.gpu_count; })[0];
      if (base) { key = 'reason.scaledOut'; params = { base: base.gpu_count, n: o.gpu_count, speed: speed(o), baseSpeed: speed(base) }; }
      break;
    }
  }
  var complete = params && Object.keys(params).every(function (k) { return params[k] != null; });
  return complete ? t(key, params) : i18n.code('reason', reason.code, reason.message);
}

// What "cheapest" ranks by (the engine's priceOf): the cards' purchase
// price, a training run's total cost (when the option has one), or the
// hourly rent. Returns the suffix of its label and reason keys.
function cheapestBy(pricing, training, o) {
  if (pricing === 'purchase') return 'Buy';
  return training && (!o || o.cost_usd != null) ? 'Run' : 'Rent';
}

// The objective "cheapest" follows the prices in use and the task.
function objectiveLabels(s) {
  var option = $('#objective option[value="cheapest"]');
  if (option) option.textContent = ctx.t('obj.cheapest' + cheapestBy(s.pr, isTraining(s)));
}

// With a preset: the source document's own pick beside the engine's first,
// each pick with its rank here and the figure the objective ranks by, or
// why it is not ranked; then whether the two agree.
function presetNote(r, s) {
  var box = $('#rec-preset');
  var p = r && r.preset;
  box.hidden = !p;
  if (!p) return;
  var zh = i18n.lang() === 'zh', t = ctx.t;
  var head = el('p', null, t('rec.documentPicks', { preset: zh ? p.label_zh : p.label_en, picks: p.document_picks,
    reason: i18n.has('preset.reason.' + p.id) ? t('preset.reason.' + p.id) : p.document_reason }));
  var options = (r.options || []).slice().sort(function (a, b) { return a.rank - b.rank; });
  var first = options[0];
  var picks = (p.document_pick_gpus || []).map(function (id) {
    var o = options.filter(function (x) { return x.gpu_id === id; })[0];
    var ex = (r.excluded || []).filter(function (x) { return x.gpu_id === id; })[0];
    return { id: id, option: o, excluded: ex };
  }).filter(function (x) { return x.option || x.excluded; });
  var items = picks.map(function (x) {
    if (!x.option) {
      var why = x.excluded.code === 'does_not_fit' ? t('rec.docTooMany', { n: r.max_gpus })
        : x.excluded.code === 'too_slow' ? t('rec.docTooSlow', { n: r.max_gpus, days: r.max_train_days })
        : i18n.code('reason', x.excluded.code, x.excluded.message);
      return el('li', { dataset: { gpuId: x.id } }, t('rec.docExcluded', { gpu: gpuName(x.id), why: why }));
    }
    var o = x.option;
    var mine = objectiveFigure(o, r, s), best = first && objectiveFigure(first, r, s);
    return el('li', { dataset: { gpuId: x.id, rank: o.rank } }, o.rank === 1
      ? t('rec.docFirst', { n: o.gpu_count, gpu: o.gpu_name, figure: mine || '' })
      : t('rec.docRank', { n: o.gpu_count, gpu: o.gpu_name, rank: o.rank, figure: mine || t('rec.noFigure'), best: best || t('rec.noFigure'),
        bestGpu: t('rec.config', { n: first.gpu_count, gpu: first.gpu_name }) }));
  });
  var v = presetVerdict(r);
  var verdict = el('p', { class: 'preset-verdict', dataset: { agree: String(v.agree) } }, v.text);
  dom.replace(box, [head, items.length ? el('ul', { class: 'list' }, items) : null, verdict]);
}

// Whether the engine's first option (by rank) is one of the preset's
// document picks, and that verdict as a sentence: the recommend view's
// note and the matrix's scenario note say the same. r: a recommend answer
// with a preset.
function presetVerdict(r) {
  var t = i18n.t;
  var first = (r.options || []).slice().sort(function (a, b) { return a.rank - b.rank; })[0] || null;
  var picks = (r.preset && r.preset.document_pick_gpus) || [];
  var agree = !!first && picks.indexOf(first.gpu_id) >= 0;
  var objective = r.objective === 'cheapest' ? t('obj.cheapest' + cheapestBy(r.pricing, r.task !== 'inference', first))
    : t('obj.' + r.objective);
  return { first: first, agree: agree, text: t(agree ? 'rec.docAgree' : 'rec.docDiffer', { objective: objective }) };
}

function perMTok() {
  var u = ctx.t('unit.perMTok');
  return u.charAt(0) === '/' ? u : ' ' + u;
}

// The catalog's NVLink generation ("NVLink 2 bridge") in the page's words.
function linkName(gpu) {
  var v = (gpu && gpu.nvlink_version) || 'NVLink';
  return v.replace(/\bbridge\b/, ctx.t('link.bridge'));
}

function gpuOf(id) { return ctx.app.gpus.filter(function (x) { return x.id === id; })[0]; }
function gpuName(id) {
  var g = gpuOf(id);
  return g ? g.name : id;
}

// The figure the objective ranks by, as text (the engine's own fields).
function objectiveFigure(o, r, s) {
  var L = i18n.locale(), t = ctx.t, training = r.task !== 'inference';
  switch (r.objective) {
    case 'fastest': {
      var v = training ? o.train_tokens_per_s : o.decode_tokens_per_s;
      return v == null ? null : format.number(L, v) + ' ' + t('unit.tokPerS');
    }
    case 'cost_per_token': return moneyText(o, training ? 'cost_usd' : 'usd_per_million_tokens', s, training ? '' : perMTok());
    case 'fewest_gpus': return t('rec.config', { n: o.gpu_count, gpu: o.gpu_name });
    case 'lowest_power': return o.power_w == null ? null : format.power(L, o.power_w);
    default: {
      var how = cheapestBy(r.pricing, training, o);
      return how === 'Buy' ? moneyText(o, 'purchase_usd', s)
        : how === 'Run' ? moneyText(o, 'cost_usd', s) : moneyText(o, 'usd_per_hour', s, t('unit.perHour'));
    }
  }
}

function render() {
  var s = ctx.app.state;
  var modelId = currentModel(s);
  $('#rec-model').value = modelId;
  $('#objective').value = s.obj;
  $('#rec-top').value = String(s.top);
  $('#pricing').value = s.pr;
  objectiveLabels(s);
  var list = $('#rec-results');
  var options = [];
  var preset = presets.matching(s, ctx.app.models);
  // With a scenario preset and no model chosen, the engine picks the model
  // the preset's size band is sized for.
  var engineModel = preset && !s.rm ? undefined : customRows.modelRef(s, modelId);
  try {
    var r = engine.recommend(toRecommendRequest(s, engineModel, preset));
    if (r.model && r.model.id && engineModel === undefined) {
      modelId = r.model.id;
      $('#rec-model').value = modelId;
    }
    if (typeof r.cny_per_usd === 'number') ctx.app.cnyPerUsd = r.cny_per_usd;
    options = r.options || [];
    presetNote(r, s);
    // Exactly what "Show N" says: the first N by rank (the engine may add
    // an option beyond them, such as the documents' own pick).
    var shown = options.slice().sort(function (a, b) { return (a.rank || 0) - (b.rank || 0); }).slice(0, s.top);
    var items = shown.length ? shown.map(function (o) { return optionItem(o, s, modelId, options); })
      : [el('li', { class: 'panel note' }, ctx.t('rec.none'))];
    if (r.excluded && r.excluded.length) items.push(el('li', { class: 'note' }, ctx.t('rec.excluded', { n: r.excluded.length })));
    dom.replace(list, items);
    ctx.setStatus('');
  } catch (e) {
    dom.clear(list);
    presetNote(null, s);
    ctx.showEngineError(e);
  }
  renderCompare(s, modelId, options);
}

function renderCompare(s, modelId, options) {
  var ids = s.cmp.length ? s.cmp.slice(0, 3) : options.slice(0, 3).map(function (o) { return o.gpu_id; })
    .filter(function (id, i, all) { return all.indexOf(id) === i; });
  [1, 2, 3].forEach(function (n) { $('#cmp-' + n).value = ids[n - 1] && ids[n - 1] !== '-' ? ids[n - 1] : ''; });
  var picked = ids.filter(function (id) { return id && id !== '-'; });
  dom.replace($('#cmp-results'), picked.length ? compareTable(s, modelId, picked) : null);
}

function estimateFor(s, modelId, gpuId) {
  try {
    return { r: engine.estimate(toEstimateRequest(s, customRows.modelRef(s, modelId), customRows.gpuRef(s, gpuId), 'auto')) };
  } catch (e) {
    return { error: e };
  }
}

// One column per GPU; rows: fit, plan, memory, then every figure the
// engine gives for at least one of them; the memory charts last.
function compareTable(s, modelId, gpuIds) {
  var t = ctx.t, L = i18n.locale();
  var results = gpuIds.map(function (id) { return estimateFor(s, modelId, id); });
  var head = el('tr', null, [el('td')].concat(results.map(function (x, i) {
    return el('th', { scope: 'col', dataset: { gpuId: gpuIds[i] } }, x.r ? x.r.gpu.name : gpuIds[i]);
  })));
  var rows = [];
  var row = function (label, cells) { rows.push(el('tr', null, [el('th', { scope: 'row' }, label)].concat(cells))); };
  row(t('detail.fits'), results.map(function (x) {
    if (x.error) return el('td', { class: 'status error', title: i18n.errorDetail(x.error) || null }, i18n.errorText(x.error));
    var r = x.r;
    // Above the GPU limit the matrix and the detail say ✗ and why; so does this.
    var over = r.fits && r.gpu_count > s.g;
    return el('td', { class: over ? 'over-limit' : null, title: over ? t('detail.overLimit', { n: r.gpu_count, limit: s.g }) : null },
      (r.fits && !over ? cells.SYMBOL_FITS + ' ' : cells.SYMBOL_NO + ' ') + r.gpu_count + ' × · ' + t('strategy.' + r.strategy) +
      (over ? ' · ' + t('cmp.overLimit', { limit: s.g }) : ''));
  }));
  row(t('detail.memory'), results.map(function (x) { return el('td', { class: 'num' }, x.r ? format.gib(L, x.r.memory.total_gib) : ''); }));
  detailView.FIGURES.forEach(function (f) {
    var texts = results.map(function (x) { return x.r ? detailView.figureText(x.r, f, { t: t, locale: L, currency: currencyOf(s, i18n.lang()) }) : null; });
    if (texts.every(function (v) { return v == null; })) return;
    row(t(f[0]), texts.map(function (v) { return el('td', { class: 'num' }, v == null ? '—' : v); }));
  });
  var charts = results.map(function (x, i) {
    return el('td', null, x.r ? chart.memoryChart(x.r, { t: t, locale: L, width: 320, id: 'cmp-chart-' + i,
      title: x.r.gpu_count + ' × ' + x.r.gpu.name }) : null);
  });
  row(t('detail.memory'), charts);
  return el('div', { class: 'cmp-scroll' }, [el('table', { class: 'plain cmp-table' }, [
    el('caption', { class: 'visually-hidden' }, t('cmp.title')), el('thead', null, head), el('tbody', null, rows)])]);
}

export { init, render, refreshLists, presetVerdict };
