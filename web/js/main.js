// Wiring: URL → state → engine → views. Every change goes through change(),
// which updates the state, rewrites the URL hash and re-renders the view.
(function (root) {
  var C = root.Caliper = root.Caliper || {};
  var $ = C.dom.$;
  // matrixPaintedMs: page start → first matrix on screen; lastRepaintMs: control
  // change → cells in view rewritten and laid out; lastFullRepaintMs: → every
  // cell current (the cells out of view follow on the next frames).
  var timings = root.__caliperTimings = { matrixPaintedMs: null, lastRepaintMs: null, lastEngineMs: null,
    lastRenderMs: null, lastFullRepaintMs: null };
  var repaintStart = 0;
  var app = C.app = { state: null, models: [], gpus: [], gpuGroups: {}, matrix: null, cnyPerUsd: null, ready: false };

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
    $('#open-full').href = fullUrl(false);
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
    var before = app.state;
    app.state = Object.assign({}, app.state, patch);
    if (patch.lang !== undefined && patch.lang !== before.lang) {
      setLang(C.i18n.pick(app.state.lang, navigator.languages || [navigator.language]));
      C.controls.translate(app.state);
      C.views.refreshLists();
    }
    writeUrl();
    render(options);
  }

  function render(options) {
    C.controls.sync(app.state);
    var preset = C.presets.matching(app.state, app.models);
    C.dom.$all('[data-preset]').forEach(function (b) { b.setAttribute('aria-pressed', String(b.dataset.preset === preset)); });
    C.dom.$all('.tabs [data-view]').forEach(function (b) {
      if (b.dataset.view === app.state.view) b.setAttribute('aria-current', 'page'); else b.removeAttribute('aria-current');
    });
    C.dom.$all('[data-view-panel]').forEach(function (p) { p.hidden = p.dataset.viewPanel !== app.state.view; });
    document.body.dataset.view = app.state.view;
    if (!app.ready) return;
    if (app.state.view === 'matrix') {
      renderMatrix(options.t0);
    } else {
      if (app.job) app.job.cancelled = true;  // the matrix reloads when its view returns
      C.views.render(app.state.view);
    }
    C.views.syncDetail();
  }

  // GPU search (names and aliases) and the class groups are applied here:
  // the engine's matrix filter has no GPU text search, and its class filter
  // also matches a card's class outside its column group (an AMD data-centre
  // card under "other vendors"). The result goes to the engine as ids.
  function gpuIds(state) {
    if (!state.gq.trim() && !state.cls.length) return null;
    return app.gpus.filter(function (g) {
      if (state.cls.length && state.cls.indexOf(app.gpuGroups[g.id]) < 0) return false;
      return C.state.matchesText([g.id, g.name].concat(g.aliases || []), state.gq);
    }).map(function (g) { return g.id; });
  }

  // One repaint: the engine's headers and the cells in view at once, then
  // (when the engine is slow) the other rows in pieces between frames.
  // The state keys that change the engine's answer; the others (metric,
  // sort, currency, language) only repaint the matrix already loaded.
  var DATA_KEYS = ['task', 'w', 'ctx', 'b', 'g', 'eng', 'tt', 'q', 'gq', 'fam', 'pmin', 'pmax', 'cls', 'mem', 'price', 'cm', 'cg'];
  function dataKey(state) {
    return JSON.stringify(DATA_KEYS.map(function (k) { return state[k]; })) + '#' + app.catalogGeneration;
  }

  function renderMatrix(t0) {
    var start = t0 || performance.now();
    var key = dataKey(app.state);
    if (app.job && !app.job.cancelled && app.job.key === key) {
      repaintMatrix(start);
      return;
    }
    if (app.job) app.job.cancelled = true;
    var job;
    try {
      job = loadJob(key);
    } catch (e) {
      showEngineError(e);
      return;
    }
    var matrix = app.matrix = job.matrix;
    var engineDone = performance.now();
    clearEngineErrors();
    pendingParts = job.done ? 1 : 2;
    C.views.paintMatrix(matrix);
    void $('#matrix').offsetHeight;  // include style and layout in the measurement
    recordRepaint(start, engineDone, performance.now());
    reportMatrix(job, performance.now() - start);
    if (!job.done) {
      C.matrixData.continueInBackground(job, job.order, function (rows) { C.views.refillRows(matrix, rows); },
        function () { partDone(job); reportMatrix(job, performance.now() - start); });
    }
    if (timings.matrixPaintedMs === null) {
      requestAnimationFrame(function () {
        setTimeout(function () { timings.matrixPaintedMs = round(performance.now()); });
      });
    }
  }

  // A new matrix job: headers, then (when loading in pieces) the cells in view.
  function loadJob(key) {
    var job = C.matrixData.start(app.state, gpuIds(app.state));
    if (!job.done) {
      var win = C.views.matrixWindow(job.matrix);
      C.matrixData.load(job, win.rows, win.cols);
      job.order = win.order;
    }
    job.key = key;
    app.job = job;
    if (typeof job.cnyPerUsd === 'number') app.cnyPerUsd = job.cnyPerUsd;
    else if (app.state.cur === 'cny' && app.cnyPerUsd === null) app.cnyPerUsd = exchangeRate();
    return job;
  }

  function recordRepaint(start, engineDone, end) {
    repaintStart = start;
    timings.lastEngineMs = round(engineDone - start);
    timings.lastRenderMs = round(end - engineDone);
    timings.lastRepaintMs = round(end - start);
    timings.lastFullRepaintMs = null;
  }

  // Same data, new presentation (metric, sort, currency, language).
  function repaintMatrix(start) {
    var job = app.job;
    if (!job.done && app.state.sort === 'gpu') C.matrixData.loadColumn(job, app.state.sg);
    var engineDone = performance.now();
    pendingParts = 1;
    C.views.paintMatrix(job.matrix);
    void $('#matrix').offsetHeight;
    recordRepaint(start, engineDone, performance.now());
    if (job.done) reportMatrix(job, performance.now() - start);
  }

  // Two parts finish a repaint: the data (when loaded in pieces) and the fill
  // of every cell; lastFullRepaintMs is set when both are done.
  var pendingParts = 0;
  function partDone(job) {
    if (job !== app.job) return;
    if (pendingParts <= 0) return;
    pendingParts -= 1;
    if (pendingParts === 0) timings.lastFullRepaintMs = round(performance.now() - repaintStart);
  }

  function reportMatrix(job, ms) {
    if (job !== app.job || app.state.view !== 'matrix') return;
    if (job.error) { showEngineError(job.error, true); return; }
    setStatus(t('status.ready', { models: job.matrix.models.length, gpus: job.matrix.gpus.length, ms: Math.round(ms) }) +
      (job.done ? '' : ' · ' + t('status.loadingRest')));
  }

  // The engine's USD → CNY rate, for matrix cells that carry USD figures only.
  function exchangeRate() {
    try {
      var probe = C.state.toEstimateRequest(app.state, app.models[0].id, app.gpus[0].id, 1);
      var rate = C.engine.estimate(probe).cny_per_usd;
      return typeof rate === 'number' ? rate : null;
    } catch (e) { return null; }
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

  function catalogChanged() {
    app.catalogGeneration = (app.catalogGeneration || 0) + 1;
    app.models = C.engine.listModels();
    app.gpus = C.engine.listGpus();
    // The engine's column group of every GPU: a matrix with no models.
    app.gpuGroups = {};
    C.engine.matrix({ model: [], gpu: 'all' }).gpus.forEach(function (g) { app.gpuGroups[g.id] = g.group; });
    var families = [];
    app.models.forEach(function (m) { if (families.indexOf(m.family) < 0) families.push(m.family); });
    C.controls.setFamilies(families);
    C.views.refreshLists();
    $('#version').textContent = t('footer.version', { version: C.engine.version() });
  }

  function bindGlobal() {
    C.dom.$all('.tabs [data-view]').forEach(function (b) {
      b.addEventListener('click', function () { change({ view: b.dataset.view }); });
    });
    C.dom.$all('[data-preset]').forEach(function (b) {
      b.addEventListener('click', function () {
        C.dom.$all('.field-error').forEach(function (n) { n.remove(); });
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
    $('#export-json').addEventListener('click', function () { if (app.job) C.exporter.matrixJson(C.matrixData.complete(app.job), app.state); });
    window.addEventListener('hashchange', function () {
      if (location.hash.replace(/^#/, '') === C.state.serialize(app.state)) return;
      app.state = C.state.parse(location.search, location.hash);
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
    C.views.init({ app: app, change: change, setStatus: setStatus, showEngineError: showEngineError, t: t,
      onMatrixComplete: function () { partDone(app.job); } });
    bindGlobal();
    render({});
    setStatus(t('status.loading'));
    // Boot steps, in ms since the page started loading (for the benchmark).
    timings.boot = { scriptsReady: round(performance.now()) };
    C.engine.init().then(function () {
      timings.boot.engineReady = round(performance.now());
      return loadCatalog();
    }).then(function () {
      timings.boot.catalogLoaded = round(performance.now());
      app.ready = true;
      writeUrl();
      render({});
    }).catch(function (e) {
      setStatus(e && e.code === 'engine_missing' ? t('status.engineMissing') : C.i18n.errorText(e), true);
    });
  }

  C.main = { change: change, render: render, fullUrl: fullUrl, catalogChanged: catalogChanged, clearEngineErrors: clearEngineErrors,
    loadBuiltInCatalog: loadCatalog };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
  else boot();
})(typeof window !== 'undefined' ? window : globalThis);
