// Wiring: URL → state → engine → views. Every change goes through change(),
// which updates the state, rewrites the URL hash and re-renders the view.
import * as controls from './controls/controls.js';
import * as dom from './dom/dom.js';
import * as engine from './engine/engine.js';
import * as exporter from './export/export.js';
import * as i18n from './i18n/i18n.js';
import * as matrixData from './matrix/data.js';
import * as matrixFill from './matrix/fill.js';
import * as matrixFlow from './matrix/flow.js';
import * as presets from './state/presets.js';
import * as presetPick from './views/preset-pick.js';
import * as views from './views/views.js';
import * as requests from './state/requests.js';
import { matchesText } from './state/search.js';
import { parse, refusedKeys, serialize, shortenedKeys, TEXT_MAX } from './state/url-codec.js';

var $ = dom.$;
var timings = window.__caliperTimings;  // matrix/flow.js; the boot steps are added here
var app = { state: null, models: [], gpus: [], matrix: null, cnyPerUsd: null, ready: false };
// What the browser tests and bench/page-bench.js read: the page's state, the
// requests it builds from it, the engine door and the matrix flow (its kept
// results, which the bench forgets). The modules themselves
// share nothing through window.
window.__caliperPage = { app: app, requests: requests, engine: engine, matrixFlow: matrixFlow };

function t(key, params) { return i18n.t(key, params); }
function getState() { return app.state; }

// detail: the engine's English message where the text is a translation.
function setStatus(text, isError, detail) {
  var s = $('#status');
  s.textContent = text;
  s.classList.toggle('error', !!isError);
  if (detail) s.title = detail; else s.removeAttribute('title');
}

function setLang(lang) {
  i18n.setLang(lang);
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  document.title = t('app.name') + ' · ' + t('app.tagline');
  i18n.apply(document);
  [1, 2, 3].forEach(function (n) { $('#cmp-' + n + '-label').textContent = t('cmp.gpu', { n: n }); });
  versionLine();
}

// The state as a hash ('' for the defaults).
function hashOf(state) {
  var hash = serialize(state);
  return hash ? '#' + hash : '';
}

function writeUrl() {
  try { history.replaceState(null, '', location.href.split('#')[0] + hashOf(app.state)); } catch (e) { /* some file:// contexts refuse; the state still works */ }
  // "Open in Caliper" from the embedded view: this same page by a relative
  // address (no query, so no embed=1), with the state in the hash.
  $('#open-full').href = (location.pathname.slice(location.pathname.lastIndexOf('/') + 1) || './') + hashOf(Object.assign({}, app.state, { embed: false }));
}

// The page URL with the state; embed=1 for the iframe snippet.
function fullUrl(embed) {
  return location.href.split(/[?#]/)[0] + hashOf(Object.assign({}, app.state, { embed: embed }));
}

function change(patch, options) {
  options = options || {};
  options.t0 = options.t0 || performance.now();
  if (app.ready) ensureLists();
  var before = app.state;
  app.state = Object.assign({}, app.state, patch);
  var langChanged = patch.lang !== undefined && patch.lang !== before.lang;
  if (langChanged) {
    setLang(i18n.pick(app.state.lang, navigator.languages || [navigator.language]));
    controls.translate(app.state);
    if (!app.ready) setStatus(t('status.loading'));
  }
  // The user's model and GPU are offered in the lists of the other views.
  var ownChanged = JSON.stringify([before.cm, before.cg]) !== JSON.stringify([app.state.cm, app.state.cg]);
  if (langChanged || ownChanged) views.refreshLists();
  if (langChanged) presetButtons();
  // The address follows once the view is shown (it is no part of the repaint).
  if (!urlPending) matrixFill.afterPaint(function () { urlPending = false; writeUrl(); });
  urlPending = true;
  render(options);
}
var urlPending = false;

// The scenario buttons, one per engine preset (describe().presets), in
// the page's language.
function presetButtons() {
  var box = $('#preset-buttons');
  var zh = i18n.lang() === 'zh';
  dom.replace(box, presets.list().map(function (p) {
    return dom.el('button', { type: 'button', class: 'chip', dataset: { preset: p.id } }, zh ? p.label_zh : p.label_en);
  }));
}

// The pressed button, the source documents' own pick for it and Caliper's
// own (the first of the view Compare opens, and whether the two agree),
// beside a way to that ranking.
var pickTimer = null;
function syncPresets() {
  var preset = presets.matching(app.state, app.models);
  dom.$all('[data-preset]').forEach(function (b) { b.setAttribute('aria-pressed', String(b.dataset.preset === preset)); });
  var p = preset ? presets.byId(preset) : null, note = $('#preset-doc');
  note.hidden = !p;
  syncClassNote();
  if (!p) return;
  $('#preset-doc-text').textContent = t('preset.docPick', { picks: p.document_picks, reason: presetReason(p) });
  var mine = $('#preset-doc-caliper');
  if (mine.dataset.preset !== p.id) { mine.textContent = ''; mine.dataset.preset = ''; }
  // The engine's answer, after the matrix has painted (it is a full
  // ranking, worked out in slices between frames: views/preset-pick.js).
  clearTimeout(pickTimer);
  pickTimer = setTimeout(function () {
    var still = presets.byId(presets.matching(app.state, app.models));
    if (!still || !app.ready) return;
    presetPick.pick(app.state, still, function (c) {
      mine.textContent = c ? presetPick.gap() + c.text : '';
      mine.dataset.preset = still.id;
      mine.dataset.gpuId = c ? c.gpu : '';
      mine.dataset.agree = c ? String(c.agree) : '';
    });
  }, 0);
}

// The GPU classes the matrix is narrowed to (the serving preset's, as its
// ranking is), said where the matrix shows, with a way to lift it.
function syncClassNote() {
  var gcl = app.state.gcl || [], box = $('#class-note');
  box.hidden = !gcl.length || app.state.view !== 'matrix';
  if (box.hidden) return;
  $('#class-note-text').textContent = t('preset.classes', { classes: gcl.map(function (c) { return t('group.' + c); }).join(t('list.sep')) });
}

function presetReason(p) {
  return i18n.has('preset.reason.' + p.id) ? t('preset.reason.' + p.id) : p.document_reason;
}

function render(options) {
  controls.sync(app.state);
  syncPresets();
  // Attributes written only when they change: a write restyles what
  // depends on them even with the same value (body[data-view] the page).
  dom.$all('.tabs [data-view]').forEach(function (b) {
    var current = b.dataset.view === app.state.view;
    if (current !== b.hasAttribute('aria-current')) {
      if (current) b.setAttribute('aria-current', 'page'); else b.removeAttribute('aria-current');
    }
  });
  dom.$all('[data-view-panel]').forEach(function (p) {
    var hidden = p.dataset.viewPanel !== app.state.view;
    if (p.hidden !== hidden) p.hidden = hidden;
  });
  if (document.body.dataset.view !== app.state.view) document.body.dataset.view = app.state.view;
  if (!app.ready) return;
  if (app.state.view === 'matrix') {
    matrixFlow.render(options.t0);
  } else {
    matrixFlow.leave();
    // The views that report nothing until asked (inventory, own model)
    // must not keep saying the engine is loading.
    if ($('#status').textContent === t('status.loading')) setStatus('');
    views.render(app.state.view);
  }
  views.syncDetail();
}

// The GPU text search (names and aliases) is applied here, since the
// engine's GPU filter has none; the matching ids go to the engine, or
// "all" when every card matches. Groups, memory and price stay the
// engine's filter.
function gpuIds(state) {
  if (!state.gq.trim()) return null;
  ensureLists();
  var ids = app.gpus.filter(function (g) {
    return matchesText([g.id, g.name].concat(g.aliases || []), state.gq);
  }).map(function (g) { return g.id; });
  return ids.length === app.gpus.length ? null : ids;
}

function round(ms) { return Math.round(ms * 10) / 10; }

function showEngineError(e, keepFields) {
  var field = requests.controlForPath(e.path);
  setStatus(i18n.errorText(e) + (e.path ? t('error.at', { path: e.path }) : ''), true, i18n.errorDetail(e));
  if (field && !keepFields) dom.fieldError($('#' + field), i18n.errorText(e), i18n.errorDetail(e));
}

function clearEngineErrors() {
  ['weights', 'engine', 'task', 'batch', 'context', 'max-gpus', 'train-tokens'].forEach(function (id) {
    var f = $('#' + id);
    if (f && f.tagName === 'SELECT') dom.fieldError(f, null);
  });
}

function loadCatalog() {
  return engine.pageCatalog().then(function (texts) {
    engine.loadCatalog(texts.gpus, texts.models);
    catalogChanged();
  });
}

// later: the caller reads the lists itself (at start-up, once the first
// matrix is on screen, which needs none; ensureLists reads them earlier
// when something needs them).
function catalogChanged(later) {
  app.catalogGeneration = (app.catalogGeneration || 0) + 1;
  versionLine();
  if (!later) ensureLists();
}

// The engine's version ("caliper 1.0.0 (catalog 2026.11)") in the page's words.
function versionLine() {
  var text = engine.version();
  if (!text) return;
  var v = /^(\S+) (\S+) \(catalog ([^)]+)\)$/.exec(text);
  $('#version').textContent = v ? t('footer.versionParts', { name: v[1], version: v[2], catalog: v[3] }) : t('footer.version', { version: text });
}

// The catalog's entries (names, aliases, families, sources) for the
// filters, the lists of the other views and the detail.
function ensureLists() {
  if (app.listsGeneration === app.catalogGeneration) return;
  app.listsGeneration = app.catalogGeneration;
  app.models = engine.listModels();
  app.gpus = engine.listGpus();
  var families = [];
  app.models.forEach(function (m) { if (families.indexOf(m.family) < 0) families.push(m.family); });
  controls.setFamilies(families);
  views.refreshLists();
  controls.sync(app.state);
  syncPresets();
}

// A link's keys by the label of the control they set (the notice below
// names them in the reader's language, not as the URL's short names).
var URL_KEY_LABELS = { task: 'ctl.task', w: 'ctl.weights', ctx: 'ctl.context', b: 'ctl.batch', g: 'ctl.maxGpus',
  eng: 'ctl.engine', show: 'ctl.metric', tt: 'ctl.trainTokens', q: 'filter.search', gq: 'filter.gpuSearch',
  fam: 'filter.families', pmin: 'filter.size', pmax: 'filter.size', cls: 'filter.classes', gcl: 'filter.classes',
  mem: 'filter.minMemory', net: 'ctl.interNode', gpn: 'ctl.gpusPerNode', view: 'nav.label', rm: 'rec.model',
  obj: 'rec.objective', pr: 'rec.pricing', top: 'rec.top', inv: 'inv.title', su: 'serve.usersLabel',
  sr: 'serve.rateLabel', sttft: 'serve.ttftLabel', stpot: 'serve.tpotLabel', stps: 'serve.tpsLabel',
  spi: 'serve.inLabel', spo: 'serve.outLabel', scls: 'serve.gpusLabel', sdis: 'serve.disLabel' };

// What the link asked for that the page could not read, in one line.
function showRefused() {
  var keys = refusedKeys(), cut = shortenedKeys(), box = $('#url-notice');
  var names = function (list) {
    return list.map(function (k) {
      var label = i18n.has('urlKey.' + k) ? 'urlKey.' + k : URL_KEY_LABELS[k];
      return label ? t(label) : k;
    }).join(t('list.sep'));
  };
  var lines = [];
  if (keys.length) lines.push(t('status.urlRefused', { keys: names(keys) }));
  if (cut.length) lines.push(t('status.urlShortened', { keys: names(cut), n: TEXT_MAX }));
  box.hidden = !lines.length;
  box.textContent = lines.join(' ');
}

function bindGlobal() {
  dom.$all('.tabs [data-view]').forEach(function (b) {
    b.addEventListener('click', function () { change({ view: b.dataset.view }); });
  });
  $('#preset-buttons').addEventListener('click', function (e) {
    var b = e.target.closest('[data-preset]');
    if (!b) return;
    dom.$all('.field-error').forEach(function (n) { n.remove(); });
    ensureLists();
    app.state = presets.apply(app.state, b.dataset.preset, app.models);
    change({});
  });
  // A serving preset is compared where services are sized: the serve view.
  $('#class-note-clear').addEventListener('click', function () { change({ gcl: [] }); });
  $('#preset-doc-compare').addEventListener('click', function () {
    var p = presets.byId(presets.matching(app.state, app.models));
    change(presets.sloOf(p) ? { view: 'serve', sgq: '' } : { view: 'recommend', rm: '' });
  });
  $('#filters-toggle').addEventListener('click', function (e) {
    var open = $('#filters').classList.toggle('open');
    e.currentTarget.setAttribute('aria-expanded', String(open));
  });
  $('#share-link').addEventListener('click', function () { exporter.copy(fullUrl(false)); });
  $('#embed-code').addEventListener('click', function () { exporter.copy(exporter.embedSnippet(fullUrl(true), t('app.name'))); });
  $('#export-csv').addEventListener('click', function () { if (app.job) exporter.matrixCsv(matrixData.complete(app.job), app.state, app.cnyPerUsd); });
  $('#export-json').addEventListener('click', function () {
    if (app.job) exporter.matrixJson(matrixData.complete(app.job), app.state, app.job.req);
  });
  window.addEventListener('hashchange', function () {
    if (location.hash.replace(/^#/, '') === serialize(app.state)) return;
    var before = app.state;
    app.state = parse(location.search, location.hash);
    showRefused();
    // A link to another language (lang=zh) turns the page's texts too.
    if (app.state.lang !== before.lang) {
      setLang(i18n.pick(app.state.lang, navigator.languages || [navigator.language]));
      controls.translate(app.state);
      if (app.ready) presetButtons();
    }
    if (app.ready) { ensureLists(); views.refreshLists(); }
    render({});
  });
}

// The texts first (unpacked in the single file, at once otherwise); the
// engine starts meanwhile.
function boot() {
  timings.boot = {};
  var engineReady = engine.init().then(function () { timings.boot.engineReady = round(performance.now()); });
  engineReady.catch(function () { /* reported by start() */ });
  var go = function () { start(engineReady); };
  i18n.ready().then(go, go);
}

function start(engineReady) {
  app.state = parse(location.search, location.hash);
  setLang(i18n.pick(app.state.lang, navigator.languages || [navigator.language]));
  if (app.state.embed) document.documentElement.classList.add('embed');
  if (document.documentElement.dataset.build === 'single') $('#offline-link').hidden = true;
  controls.init({ getState: getState, onChange: change, t: t, cnyPerUsd: function () { return app.cnyPerUsd; } });
  controls.translate(app.state);
  views.init({ app: app, change: change, setStatus: setStatus, showEngineError: showEngineError, t: t,
    loadBuiltInCatalog: loadCatalog, catalogChanged: catalogChanged });
  matrixFlow.init({ app: app, setStatus: setStatus, showEngineError: showEngineError, clearEngineErrors: clearEngineErrors,
    gpuIds: gpuIds, ensureLists: ensureLists });
  bindGlobal();
  showRefused();
  render({});
  setStatus(t('status.loading'));
  // Boot steps, in ms since the page started loading (for the benchmark).
  // The engine and the catalog text unpack side by side.
  timings.boot.scriptsReady = round(performance.now());
  Promise.all([engineReady,
    engine.pageCatalog().then(function (texts) { timings.boot.catalogUnpacked = round(performance.now()); return texts; })
  ]).then(function (done) {
    engine.loadCatalog(done[1].gpus, done[1].models);
    var described = engine.describe() || {};
    presets.setEngine(described.presets);
    // The engine's USD → CNY rate from the start, so the price filter is
    // in the currency in force whichever view opens first (its answers
    // carry the same rate later).
    var rate = ((described.defaults || {}).inference || {}).cny_per_usd;
    if (app.cnyPerUsd === null && typeof rate === 'number' && rate > 0) app.cnyPerUsd = rate;
    presetButtons();
    var s = app.state;
    var listsLater = s.view === 'matrix' && !s.cell;
    catalogChanged(listsLater);
    timings.boot.catalogLoaded = round(performance.now());
    app.ready = true;
    writeUrl();
    render({});
    if (listsLater) matrixFill.afterPaint(ensureLists);
  }).catch(function (e) {
    setStatus(e && e.code === 'engine_missing' ? t('status.engineMissing') : i18n.errorText(e), true, i18n.errorDetail(e));
  });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
else boot();
