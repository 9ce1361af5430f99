// The scenario detail (one engine.estimate): verdict, plan, memory chart,
// speed and cost, warnings, "make it fit" suggestions, rules of thumb and
// the engine's own formulas ("show the math").
import * as cells from '../matrix/cells.js';
import * as chart from './chart.js';
import * as dom from '../dom/dom.js';
import * as exporter from '../export/export.js';
import * as format from '../format/format.js';
import * as i18n from '../i18n/i18n.js';
import * as planKnobs from './plan-knobs.js';
import { INTER_NODE_LABELS } from '../state/vocabulary.js';

var el = dom.el;

// Figures shown when the engine gives them: [label key, field, kind]
var FIGURES = [
  ['fig.decode', 'decode_tokens_per_s', 'rate'], ['fig.prefill', 'prefill_tokens_per_s', 'rate'],
  ['fig.ttft', 'time_to_first_token_s', 'seconds'], ['fig.train', 'train_tokens_per_s', 'rate'],
  ['fig.trainHours', 'train_hours', 'hours'], ['fig.usdPerHour', 'usd_per_hour', 'perHour'],
  ['fig.perMTok', 'usd_per_million_tokens', 'money'], ['fig.cost', 'cost_usd', 'money'],
  ['fig.purchase', 'purchase_usd', 'money'], ['fig.power', 'power_w', 'power'], ['fig.energy', 'energy_kwh', 'kwh']];

// The figure with its 80% band where the result has one (result.ranges,
// docs/CONTRACT.md): "51 tok/s (44–58)".
function figureText(result, f, ctx) {
  var v = result[f[1]], L = ctx.locale, key = f[1];
  // The first token a served request waits for: where the estimate has
  // serving figures, their TTFT (the one the serve view shows), not the
  // prefill model's lone prompt (docs/CONTRACT.md, serving).
  if (key === 'time_to_first_token_s' && result.serving && format.isNum(result.serving.ttft_s)) {
    v = result.serving.ttft_s;
    key = 'serving.ttft_s';
  }
  if (v == null) return null;
  var units = unitTexts(ctx.t);
  var band = format.bandOf(result.ranges, key);
  switch (f[2]) {
    case 'rate': return format.number(L, v) + ' ' + ctx.t('unit.tokPerS') + (band ? bandText(band, function (x) { return format.number(L, x); }) : '');
    case 'seconds': return format.seconds(L, v, units) + (band ? bandText(band, function (x) { return format.seconds(L, x, units); }) : '');
    case 'hours': return format.duration(L, v, units) + (band ? bandText(band, function (x) { return format.duration(L, x, units); }) : '');
    case 'power': return format.power(L, v);
    case 'kwh': return format.number(L, v) + ' ' + ctx.t('unit.kwh');
    default: {
      var m = format.moneyField(result, f[1], ctx.currency);
      return format.money(L, m.value, m.currency) + (f[2] === 'perHour' ? ctx.t('unit.perHour') : '');
    }
  }
}

var bandText = format.bandText;

function unitTexts(t) {
  return { ms: t('unit.ms'), s: t('unit.s'), min: t('unit.min'), h: t('unit.h'), d: t('unit.d'), y: t('unit.y') };
}

// The width inside the detail dialog (styles.css: min(980px, 96vw), 18px
// padding each side, 1px border), for a chart drawn at its shown size.
function dialogWidth() {
  var vw = document.documentElement.clientWidth || window.innerWidth || 980;
  return Math.min(980, vw * 0.96) - 2 * 18 - 2;
}

function section(titleKey, ctx, children) {
  return el('section', { class: 'detail-section' }, [el('h3', null, ctx.t(titleKey))].concat(children));
}

function verdict(r, ctx) {
  var s = ctx.state || {};
  var status = !r.fits ? 'no' : r.gpu_count === 1 ? 'fits' : r.plan && r.plan.nodes > 1 ? 'multi-node' : 'fits-multi';
  var cls = { fits: 'st-fits', 'fits-multi': 'st-multi', 'multi-node': 'st-nodes', no: 'st-no' }[status];
  var sym = r.fits ? (r.gpu_count === 1 ? cells.SYMBOL_FITS : r.gpu_count + '×') : cells.SYMBOL_NO;
  var params = { n: r.gpu_count, gpu: r.gpu.name, strategy: ctx.t('strategy.' + r.strategy), needed: r.gpus_needed };
  var key = r.fits ? 'detail.verdictFits' : r.gpus_needed != null ? 'detail.verdictNo' : 'detail.verdictNever';
  var tight = r.fits && r.fit === 'tight';
  if (tight) { cls = 'st-multi st-tight'; sym = cells.SYMBOL_TIGHT; }
  // The planner's own count above the page's GPU limit: the matrix marks
  // the cell ✗ (legend: does not fit within the GPU limit); so does this.
  var overLimit = r.fits && s.cnt === 'auto' && typeof s.g === 'number' && r.gpu_count > s.g;
  if (overLimit) { cls = 'st-no'; sym = cells.SYMBOL_NO; tight = false; }
  var plan = r.plan ? ctx.t('detail.planText', { tp: r.plan.tp, pp: r.plan.pp, dp: r.plan.dp, nodes: r.plan.nodes }) : '';
  if (r.plan && r.plan.nodes > 1 && r.plan.gpus_per_node) plan += ctx.t('list.sep') + ctx.t('knob.perNode', { n: r.plan.gpus_per_node });
  if (r.plan && r.plan.nodes > 1) plan += ctx.t('list.sep') + ctx.t('detail.interNode', { fabric: fabricText(r.plan, s, ctx.t) });
  if (r.plan && r.plan.offload && r.plan.offload !== 'none') plan += ctx.t('list.sep') + planKnobs.offloadText(r.plan, ctx);
  if (r.plan && r.plan.gradient_checkpointing) plan += ctx.t('list.sep') + ctx.t('knob.checkpointingOn');
  if (r.plan && r.plan.micro_batch != null) plan += ctx.t('list.sep') + ctx.t('knob.microBatchText', { n: r.plan.micro_batch });
  return el('div', { class: 'verdict ' + cls }, [el('span', { class: 'sym', 'aria-hidden': 'true' }, sym),
    el('div', null, [el('div', null, ctx.t(key, params)), tight ? el('div', { class: 'tight-note' }, ctx.t('detail.tight')) : null,
      overLimit ? el('div', { class: 'over-limit' }, ctx.t('detail.overLimit', { n: r.gpu_count, limit: s.g })) : null,
      el('div', { class: 'rec-meta' }, ctx.t('detail.plan') + ctx.t('list.colon') + plan),
      whyLine(r, ctx)])]);
}

// The fabric between the plan's servers: the engine's own (plan.inter_node:
// the fabric asked for, by its label, or the GPU class's default by the
// engine's name for it), else the one chosen under Workload, else the GPU
// class's default.
function fabricText(plan, s, t) {
  var v = plan.inter_node;
  if (v && typeof v === 'object') v = v.fabric || v.name;
  if (typeof v === 'string' && v) return INTER_NODE_LABELS[v] || v;
  if (s.interNode && s.interNode !== 'auto') return INTER_NODE_LABELS[s.interNode] || s.interNode;
  return t('detail.interNodeByClass');
}

// Why the planner chose this plan (plan.why codes, translated; the code
// itself where the page has no text for it).
function whyLine(r, ctx) {
  var why = r.plan && Array.isArray(r.plan.why) ? r.plan.why : [];
  if (!why.length) return null;
  return el('div', { class: 'rec-meta plan-why' }, ctx.t('detail.why') + ctx.t('list.colon') + why.map(function (c) {
    return i18n.code('why', whyCode(c, r.plan));
  }).join(ctx.t('list.sep')));
}

// The engine says strategy_replicas_fit for every training plan whose
// states are not sharded: data parallel, but also tensor and pipeline
// parallel plans, where "a full replica on each GPU" would be wrong.
function whyCode(code, plan) {
  return code === 'strategy_replicas_fit' && plan && (plan.tp > 1 || plan.pp > 1) ? 'strategy_model_split' : code;
}

function chartBlock(r, ctx) {
  var title = ctx.t('detail.chartTitle', { model: r.model.name || r.model.id, gpu: r.gpu.name });
  var svg = chart.memoryChart(r, { t: ctx.t, locale: ctx.locale, title: title, id: 'detail-chart', width: dialogWidth() });
  var name = 'caliper-memory-' + r.model.id + '-' + r.gpu.id;
  var tools = el('div', { class: 'chart-tools' }, [
    el('button', { type: 'button', class: 'btn small', id: 'export-svg', onclick: function () { exporter.svg(svg, name); } }, ctx.t('export.svg')),
    el('button', { type: 'button', class: 'btn small', id: 'export-png', onclick: function () { exporter.png(svg, name); } }, ctx.t('export.png'))]);
  var memBand = r.ranges && r.ranges['memory.total_gib'];
  var total = r.memory && format.isNum(r.memory.total_gib) && Array.isArray(memBand)
    ? el('p', { class: 'note', dataset: { field: 'memory.total_gib' } }, ctx.t('detail.total') + ctx.t('list.colon') + format.gib(ctx.locale, r.memory.total_gib) +
      bandText(memBand, function (x) { return format.gib(ctx.locale, x); })) : null;
  var extra = r.memory && r.memory.cpu_offload_gib > 0
    ? el('p', { class: 'note', dataset: { field: 'memory.cpu_offload_gib' } }, ctx.t('detail.cpuOffload') + ctx.t('list.colon') + format.gib(ctx.locale, r.memory.cpu_offload_gib)) : null;
  return section('detail.memory', ctx, [el('p', { class: 'note' }, ctx.t('detail.memoryNote')), svg, total, extra, tools]);
}

// A speech, embedding or diffusion model's own figures (docs/CONTRACT.md
// "Workloads": its object is filled instead of the tokens/s figures), as
// [label key, text, field]; none for an LLM.
function workloadFigures(r, ctx) {
  var L = ctx.locale, t = ctx.t, units = unitTexts(t), out = [];
  var asr = r.asr, emb = r.embedding, img = r.image, vid = r.video;
  if (asr && format.isNum(asr.realtime_factor) && asr.realtime_factor > 0) {
    out.push(['fig.realtime', t('fig.realtimeNote', { rtf: format.number(L, asr.realtime_factor),
      x: format.number(L, 1 / asr.realtime_factor) }), 'asr.realtime_factor']);
  }
  if (asr && format.isNum(asr.audio_seconds_per_s)) {
    out.push(['fig.audio', t('fig.audioValue', { v: format.number(L, asr.audio_seconds_per_s) }), 'asr.audio_seconds_per_s']);
  }
  if (emb && format.isNum(emb.tokens_per_s)) out.push(['fig.embedTokens', format.number(L, emb.tokens_per_s) + ' ' + t('unit.tokPerS'), 'embedding.tokens_per_s']);
  if (emb && format.isNum(emb.sequences_per_s)) out.push(['fig.sequences', format.number(L, emb.sequences_per_s) + t('unit.perS'), 'embedding.sequences_per_s']);
  if (img && format.isNum(img.seconds_per_image)) out.push(['fig.perImage', format.seconds(L, img.seconds_per_image, units), 'image.seconds_per_image']);
  if (img && format.isNum(img.images_per_s)) out.push(['fig.images', format.number(L, img.images_per_s) + t('unit.perS'), 'image.images_per_s']);
  if (vid && format.isNum(vid.seconds_per_video)) {
    var sv = vid.seconds_per_video;
    out.push(['fig.perVideo', sv < 120 ? format.seconds(L, sv, units) : format.duration(L, sv / 3600, units), 'video.seconds_per_video']);
  }
  return out;
}

function figuresBlock(r, ctx) {
  var dl = el('dl', { class: 'figures' });
  workloadFigures(r, ctx).forEach(function (f) {
    dl.appendChild(el('div', { dataset: { field: f[2] } }, [el('dt', null, ctx.t(f[0])), el('dd', null, f[1])]));
  });
  FIGURES.forEach(function (f) {
    var text = figureText(r, f, ctx);
    if (text == null) return;
    dl.appendChild(el('div', { dataset: { field: f[1] } }, [el('dt', null, ctx.t(f[0])), el('dd', null, text)]));
  });
  // A plan that does not fit has no figures: no empty heading either.
  if (!dl.childNodes.length) return null;
  var year = r.price_year ? el('p', { class: 'note' }, ctx.t('fig.priceYear', { year: r.price_year })) : null;
  var bands = r.ranges && Object.keys(r.ranges).length ? el('p', { class: 'note' }, ctx.t('detail.bandNote')) : null;
  return section('detail.figures', ctx, [dl, bands, year]);
}

function warningsBlock(r, ctx) {
  var items = (r.warnings || []).map(function (w) {
    return el('li', { dataset: { code: w.code }, title: w.message }, i18n.code('warn', w.code, w.message));
  });
  (ctx.caveats || []).forEach(function (c) { items.push(el('li', { dataset: { code: c.id } }, c.text)); });
  if (!items.length) return null;
  return section('detail.warnings', ctx, [el('ul', { class: 'list warn-list' }, items)]);
}

function table(headers, rows, numeric) {
  var head = el('tr', null, headers.map(function (h, i) {
    return el('th', { scope: 'col', class: numeric.indexOf(i) >= 0 ? 'num' : null }, h);
  }));
  var body = rows.map(function (cells) {
    return el('tr', null, cells.map(function (c, i) {
      return el(i === 0 ? 'th' : 'td', { scope: i === 0 ? 'row' : null, class: numeric.indexOf(i) >= 0 ? 'num' : null }, c);
    }));
  });
  return el('table', { class: 'plain' }, [el('thead', null, head), el('tbody', null, body)]);
}

// The change a suggestion makes: the engine's words in English; in another
// language the figure it names in that language's words (or, where the
// engine's words are fixed, their translation).
var SUGGESTION_FORMS = [['quantize', /^weights (\S+)$/, 'weights', 'format'], ['shorter_context', /^context of (\d+) tokens$/, 'context', 'n'],
  ['smaller_batch', /^batch of (\d+)$/, 'batch', 'n'], ['more_gpus', /^(\d+) GPUs?$/, 'gpus', 'n']];
function suggestionDetail(s, ctx) {
  var text = String(s.detail || '');
  if (i18n.lang() === 'en') return text;
  for (var i = 0; i < SUGGESTION_FORMS.length; i++) {
    var f = SUGGESTION_FORMS[i], m = s.change === f[0] && f[1].exec(text);
    if (m) {
      var params = {};
      params[f[3]] = f[3] === 'n' ? format.number(ctx.locale, Number(m[1]), 0) : m[1];
      return ctx.t('detail.suggestion.' + f[2], params);
    }
  }
  return i18n.code('sdetail', s.change, text);
}

function suggestionsBlock(r, ctx) {
  var list = r.suggestions || [];
  if (!list.length) return r.fits ? section('detail.suggestions', ctx, [el('p', { class: 'note' }, ctx.t('detail.suggestionsNone'))]) : null;
  var rows = list.map(function (s) {
    var mark = s.fits ? cells.SYMBOL_FITS + ' ' : cells.SYMBOL_NO + ' ';
    return [el('span', { dataset: { code: s.change } }, mark + i18n.code('sugg', s.change)), el('code', null, suggestionDetail(s, ctx)),
      format.gib(ctx.locale, s.total_gib), String(s.gpu_count)];
  });
  return section('detail.suggestions', ctx, [table([ctx.t('detail.change'), '', ctx.t('detail.after'), ctx.t('detail.gpus')], rows, [2, 3])]);
}

// A rule's formula: the engine's words in English; in another language the
// rule's own template with the figures the engine's text names (parameters
// in billions, adapter parameters in millions), or the engine's text
// (phrase by phrase, formulaCode) for a rule the page has no template for.
function ruleFormula(q, ctx) {
  var text = String(q.formula || '');
  var template = i18n.lang() === 'en' ? null : i18n.codeTemplate('rformula.' + q.rule);
  var n = /(\d+(?:\.\d+)?)B\b/.exec(text), m = /(\d+)M\b/.exec(text);
  if (!template || !n || (template.indexOf('{m}') >= 0 && !m)) return formulaCode(text);
  return el('code', { title: text }, i18n.fill(template, { n: n[1], m: m ? m[1] : '' }));
}

function rulesBlock(r, ctx) {
  var list = r.quick_rules || [];
  if (!list.length) return null;
  var rows = list.map(function (q) {
    return [el('span', { dataset: { code: q.rule } }, i18n.code('rule', q.rule)), ruleFormula(q, ctx),
      format.gib(ctx.locale, q.value_gib)];
  });
  return section('detail.quickRules', ctx, [el('p', { class: 'note' }, ctx.t('detail.quickRulesNote')),
    table([ctx.t('detail.term'), ctx.t('detail.formula'), ctx.t('detail.value')], rows, [2])]);
}

// A term's unit, from the suffix of its name (every quantity names its
// unit) or, for the few names without one, from the term itself.
// {prefix, suffix}; fractions also get their value in per cent.
var TERM_UNITS = { kv_bytes_per_token: 'unit.bytesPerToken', lora_params: 'unit.params',
  serving_running_requests: 'unit.requests',
  train_model_flops_per_token: 'unit.flopPerToken', fullest_gpu: 'GiB', train_mfu: '%',
  usd_per_hour: '$/h', usd_per_million_tokens: '$/Mtok' };
var SUFFIX_UNITS = [[/_fraction$/, '%'], [/_tokens_per_s$/, 'unit.tokPerS'], [/_per_s$/, '/s'], [/_gib$/, 'GiB'],
  [/_gb$/, 'GB'], [/_ms$/, 'unit.ms'], [/_tflops$/, 'TFLOPS'], [/_kwh$/, 'unit.kwh'], [/_hours$/, 'unit.h'], [/_s$/, 'unit.s'],
  [/_w$/, 'W'], [/_usd$/, '$'], [/_cny$/, '¥'], [/_gbps$/, 'GB/s']];
function termUnit(term, t) {
  var unit = TERM_UNITS[term];
  for (var i = 0; !unit && i < SUFFIX_UNITS.length; i++) if (SUFFIX_UNITS[i][0].test(term)) unit = SUFFIX_UNITS[i][1];
  if (!unit) return null;
  if (unit === '$' || unit === '¥') return { prefix: unit };
  if (unit === '$/h') return { prefix: '$', suffix: t('unit.perHour') };
  if (unit === '$/Mtok') return { prefix: '$', suffix: t('unit.perMTok') };
  if (unit === '%') return { percent: true };
  return { suffix: unit.indexOf('unit.') === 0 ? t(unit) : unit };
}

// The value as the engine gives it (4 decimals below 1, else 2), its unit
// beside it from the style sheet (data-prefix, data-unit), so the cell's
// text stays the number.
function termValue(e, ctx) {
  var td = el('td', { class: 'num' }, format.number(ctx.locale, e.value, Math.abs(e.value) < 1 ? 4 : 2));
  var unit = termUnit(e.term, ctx.t);
  if (unit && unit.percent) unit = { suffix: '= ' + format.number(ctx.locale, e.value * 100, 1) + '%' };
  if (unit && unit.prefix) td.dataset.prefix = unit.prefix;
  if (unit && unit.suffix) td.dataset.unit = (/^[/%]/.test(unit.suffix) ? '' : '\u00a0') + unit.suffix;
  return td;
}

// An engine formula in the page's language (i18n.formula: the engine's own
// words in English, its phrases swapped in Chinese, the English original as
// the title); one the page cannot translate whole stays English, marked so.
function formulaCode(text) {
  var shown = i18n.formula(text);
  if (shown == null) return el('code', { lang: 'en' }, text);
  return i18n.lang() === 'en' ? el('code', { lang: 'en' }, text) : el('code', { title: text }, shown);
}

function mathBlock(r, ctx) {
  var list = r.explain || [];
  if (!list.length) return null;
  var english = 0;
  var rows = list.map(function (e) {
    var code = formulaCode(e.formula);
    if (code.lang === 'en' && i18n.lang() !== 'en') english++;
    return el('tr', null, [el('th', { scope: 'row' }, el('span', { title: e.term }, i18n.code('term', e.term, e.term))),
      el('td', null, code), termValue(e, ctx)]);
  });
  var head = el('tr', null, [el('th', { scope: 'col' }, ctx.t('detail.term')), el('th', { scope: 'col' }, ctx.t(english ? 'detail.formulaEn' : 'detail.formula')),
    el('th', { scope: 'col', class: 'num' }, ctx.t('detail.value'))]);
  var details = el('details', { class: 'math', id: 'detail-math', open: ctx.mathOpen ? true : null }, [
    el('summary', null, ctx.t('detail.math')),
    el('table', { class: 'plain math-table' }, [el('thead', null, head), el('tbody', null, rows)])]);
  return el('section', { class: 'detail-section' }, [details]);
}

// Where the catalog's figures come from: each entry's sources, confidence and notes.
function sourcesBlock(entries, ctx) {
  var items = entries.filter(Boolean).map(function (e) {
    var meta = e.confidence ? ' (' + ctx.t('detail.confidence', { level: ctx.t('confidence.' + e.confidence) }) + ')' : '';
    // The catalog carries each note in Chinese beside the English (notes_zh).
    var shown = !e.notes ? null : i18n.lang() === 'en' ? e.notes : e['notes_' + i18n.lang()] || null;
    // Sources are citations (documents, files, pages by their own titles),
    // quoted as written.
    return el('div', { class: 'source-entry' }, [el('h4', null, e.name + meta),
      el('ul', { class: 'list' }, (e.sources || []).map(function (src) { return el('li', null, el('cite', { lang: 'en' }, src)); })),
      !e.notes ? null : shown != null ? el('p', { class: 'note', title: i18n.lang() === 'en' ? null : e.notes }, shown)
        : el('p', { class: 'note' }, [ctx.t('detail.notesEn') + ctx.t('list.colon'), el('span', { lang: 'en' }, e.notes)])]);
  });
  if (!items.length) return null;
  return el('section', { class: 'detail-section' }, [el('details', { class: 'math' },
    [el('summary', null, ctx.t('detail.sources'))].concat(items))]);
}

// The plan knobs above the answer (kept when the engine refuses them, so
// they can be put back).
function toolsBlock(r, ctx) {
  return el('div', { class: 'detail-tools' }, planKnobs.fields(r, ctx.state, ctx.knobs, ctx));
}

// ctx: {t, locale, currency, state, knobs, change, caveats, mathOpen, gpuEntry, modelEntry}
function render(body, r, ctx) {
  dom.replace(body, [toolsBlock(r, ctx), verdict(r, ctx), chartBlock(r, ctx), figuresBlock(r, ctx), warningsBlock(r, ctx),
    suggestionsBlock(r, ctx), rulesBlock(r, ctx), mathBlock(r, ctx), sourcesBlock([ctx.gpuEntry, ctx.modelEntry], ctx)]);
}

function renderError(body, err, ctx) {
  dom.replace(body, [ctx.state ? toolsBlock(null, ctx) : null, el('p', { class: 'status error', role: 'alert' },
    ctx.t('custom.errorAt', { message: i18n.code('error', err.code, err.message), path: err.path || '/' }))]);
}

export { render, renderError, FIGURES, figureText, unitTexts, termUnit, whyCode, workloadFigures, ruleFormula };
