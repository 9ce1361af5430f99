// Wiring: URL → state → engine → views. Every change goes through change(),
// which updates the state, rewrites the URL hash and re-renders the view.
(function (root) {
  var C = root.Caliper = root.Caliper || {};
  var $ = C.dom.$;
  var timings = root.__caliperTimings;  // matrix-flow.js; the boot steps are added here
  var app = C.app = { state: null, models: [], gpus: [], matrix: null, cnyPerUsd: null, ready: false };

  function t(key, params) { return C.i18n.t(key, params); }
  function getState() { return app.state; }

  function setStatus(text, isError) {
    var s = $('#status');
    s.textContent = text;
    s.classList.toggle('error', !!isError);
  }

  function setLang(lang) {
    C.i18n.setLang(lang);
    document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
    document.title = t('app.name') + ' · ' + t('app.tagline');
    C.i18n.apply(document);
    [1, 2, 3].forEach(function (n) { $('#cmp-' + n + '-label').textContent = t('cmp.gpu', { n: n }); });
  }

  function writeUrl() {
    var hash = C.state.serialize(app.state);
    var url = location.href.replace(/#.*$/, '') + (hash ? '#' + hash : '');
    try { history.replaceState(null, '', url); } catch (e) { /* some file:// contexts refuse; the state still works */ }
    $('#open-full').href = openLink();
  }

  // "Open in Caliper" from the embedded view: this same page by a relative
  // address (no query, so no embed=1), with the state in the hash.
  function openLink() {
    var s = JSON.parse(JSON.stringify(app.state));
    s.embed = false;
    var hash = C.state.serialize(s);
    var file = location.pathname.slice(location.pathname.lastIndexOf('/') + 1);
    return (file || './') + (hash ? '#' + hash : '');
  }

  // The page URL with the state; embed=1 for the iframe snippet.
  function fullUrl(embed) {
    var s = JSON.parse(JSON.stringify(app.state));
    s.embed = !!embed;
    var hash = C.state.serialize(s);
    return location.href.replace(/[?#].*$/, '') + (hash ? '#' + hash : '');
  }

  function change(patch, options) {
    options = options || {};
    options.t0 = options.t0 || performance.now();
    if (app.ready) ensureLists();
    var before = app.state;
    app.state = Object.assign({}, app.state, patch);
    var langChanged = patch.lang !== undefined && patch.lang !== before.lang;
    if (langChanged) {
      setLang(C.i18n.pick(app.state.lang, navigator.languages || [navigator.language]));
      C.controls.translate(app.state);
      if (!app.ready) setStatus(t('status.loading'));
    }
    // The user's model and GPU are offered in the lists of the other views.
    var ownChanged = JSON.stringify([before.cm, before.cg]) !== JSON.stringify([app.state.cm, app.state.cg]);
    if (langChanged || ownChanged) C.views.refreshLists();
    writeUrl();
    render(options);
  }

  function syncPresets() {
    var preset = C.presets.matching(app.state, app.models);
    C.dom.$all('[data-preset]').forEach(function (b) { b.setAttribute('aria-pressed', String(b.dataset.preset === preset)); });
  }

  function render(options) {
    C.controls.sync(app.state);
    syncPresets();
    // Attributes written only when they change: a write restyles what
    // depends on them even with the same value (body[data-view] the page).
    C.dom.$all('.tabs [data-view]').forEach(function (b) {
      var current = b.dataset.view === app.state.view;
      if (current !== b.hasAttribute('aria-current')) {
        if (current) b.setAttribute('aria-current', 'page'); else b.removeAttribute('aria-current');
      }
    });
    C.dom.$all('[data-view-panel]').forEach(function (p) {
      var hidden = p.dataset.viewPanel !== app.state.view;
      if (p.hidden !== hidden) p.hidden = hidden;
    });
    if (document.body.dataset.view !== app.state.view) document.body.dataset.view = app.state.view;
    if (!app.ready) return;
    if (app.state.view === 'matrix') {
      C.matrixFlow.render(options.t0);
    } else {
      C.matrixFlow.leave();
      C.views.render(app.state.view);
    }
    C.views.syncDetail();
  }

  // The GPU text search (names and aliases) is applied here, since the
  // engine's GPU filter has none; the matching ids go to the engine, or
  // "all" when every card matches. Groups, memory and price stay the
  // engine's filter.
  function gpuIds(state) {
    if (!state.gq.trim()) return null;
    ensureLists();
    var ids = app.gpus.filter(function (g) {
      return C.state.matchesText([g.id, g.name].concat(g.aliases || []), state.gq);
    }).map(function (g) { return g.id; });
    return ids.length === app.gpus.length ? null : ids;
  }

  function round(ms) { return Math.round(ms * 10) / 10; }

  function showEngineError(e, keepFields) {
    var field = C.state.controlForPath(e.path);
    setStatus(C.i18n.errorText(e) + (e.path ? ' (' + e.path + ')' : ''), true);
    if (field && !keepFields) C.dom.fieldError($('#' + field), C.i18n.errorText(e));
  }

  function clearEngineErrors() {
    ['weights', 'engine', 'task', 'batch', 'context', 'max-gpus', 'train-tokens'].forEach(function (id) {
      var f = $('#' + id);
      if (f && f.tagName === 'SELECT') C.dom.fieldError(f, null);
    });
  }

  function loadCatalog() {
    return C.engine.pageCatalog().then(function (texts) {
      C.engine.loadCatalog(texts.gpus, texts.models);
      catalogChanged();
    });
  }

  // later: the caller reads the lists itself (at start-up, once the first
  // matrix is on screen, which needs none; ensureLists reads them earlier
  // when something needs them).
  function catalogChanged(later) {
    app.catalogGeneration = (app.catalogGeneration || 0) + 1;
    $('#version').textContent = t('footer.version', { version: C.engine.version() });
    if (!later) ensureLists();
  }

  // The catalog's entries (names, aliases, families, sources) for the
  // filters, the lists of the other views and the detail.
  function ensureLists() {
    if (app.listsGeneration === app.catalogGeneration) return;
    app.listsGeneration = app.catalogGeneration;
    app.models = C.engine.listModels();
    app.gpus = C.engine.listGpus();
    var families = [];
    app.models.forEach(function (m) { if (families.indexOf(m.family) < 0) families.push(m.family); });
    C.controls.setFamilies(families);
    C.views.refreshLists();
    C.controls.sync(app.state);
    syncPresets();
  }

  function bindGlobal() {
    C.dom.$all('.tabs [data-view]').forEach(function (b) {
      b.addEventListener('click', function () { change({ view: b.dataset.view }); });
    });
    C.dom.$all('[data-preset]').forEach(function (b) {
      b.addEventListener('click', function () {
        C.dom.$all('.field-error').forEach(function (n) { n.remove(); });
        ensureLists();
        app.state = C.presets.apply(app.state, b.dataset.preset, app.models);
        change({});
      });
    });
    $('#filters-toggle').addEventListener('click', function (e) {
      var open = $('#filters').classList.toggle('open');
      e.currentTarget.setAttribute('aria-expanded', String(open));
    });
    $('#share-link').addEventListener('click', function () { C.exporter.copy(fullUrl(false)); });
    $('#embed-code').addEventListener('click', function () { C.exporter.copy(C.exporter.embedSnippet(fullUrl(true), t('app.name'))); });
    $('#export-csv').addEventListener('click', function () { if (app.job) C.exporter.matrixCsv(C.matrixData.complete(app.job), app.state); });
    $('#export-json').addEventListener('click', function () {
      if (app.job) C.exporter.matrixJson(C.matrixData.complete(app.job), app.state, app.job.req);
    });
    window.addEventListener('hashchange', function () {
      if (location.hash.replace(/^#/, '') === C.state.serialize(app.state)) return;
      app.state = C.state.parse(location.search, location.hash);
      if (app.ready) { ensureLists(); C.views.refreshLists(); }
      render({});
    });
  }

  function boot() {
    app.state = C.state.parse(location.search, location.hash);
    setLang(C.i18n.pick(app.state.lang, navigator.languages || [navigator.language]));
    if (app.state.embed) document.documentElement.classList.add('embed');
    if (document.documentElement.dataset.build === 'single') $('#offline-link').hidden = true;
    C.controls.init({ getState: getState, onChange: change, t: t });
    C.controls.translate(app.state);
    C.views.init({ app: app, change: change, setStatus: setStatus, showEngineError: showEngineError, t: t });
    C.matrixFlow.init({ app: app, setStatus: setStatus, showEngineError: showEngineError, clearEngineErrors: clearEngineErrors,
      gpuIds: gpuIds, ensureLists: ensureLists });
    bindGlobal();
    render({});
    setStatus(t('status.loading'));
    // Boot steps, in ms since the page started loading (for the benchmark).
    // The engine and the catalog text unpack side by side.
    timings.boot = { scriptsReady: round(performance.now()) };
    Promise.all([C.engine.init().then(function () { timings.boot.engineReady = round(performance.now()); }),
      C.engine.pageCatalog().then(function (texts) { timings.boot.catalogUnpacked = round(performance.now()); return texts; })
    ]).then(function (done) {
      C.engine.loadCatalog(done[1].gpus, done[1].models);
      var s = app.state;
      var listsLater = s.view === 'matrix' && !s.cell;
      catalogChanged(listsLater);
      timings.boot.catalogLoaded = round(performance.now());
      app.ready = true;
      writeUrl();
      render({});
      if (listsLater) C.matrixFill.afterPaint(ensureLists);
    }).catch(function (e) {
      setStatus(e && e.code === 'engine_missing' ? t('status.engineMissing') : C.i18n.errorText(e), true);
    });
  }

  C.main = { change: change, render: render, fullUrl: fullUrl, catalogChanged: catalogChanged, clearEngineErrors: clearEngineErrors,
    loadBuiltInCatalog: loadCatalog, ensureLists: ensureLists };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
  else boot();
})(typeof window !== 'undefined' ? window : globalThis);
