// Wiring: URL → state → engine → views. Every change goes through change(),
// which updates the state, rewrites the URL hash and re-renders the view.
(function (root) {
  var C = root.Caliper = root.Caliper || {};
  var $ = C.dom.$;
  // matrixPaintedMs: page start → the first matrix cells on screen (the task
  // after the frame that shows them). lastRepaintMs: control change → the
  // cells in view written and laid out (lastEngineMs of it in the engine,
  // lastRenderMs in the page). lastFullRepaintMs: control change → every cell
  // current, written and laid out (null until then); lastFullEngineMs: the
  // engine time for the cells out of view. lastCells: cells in the matrix.
  var timings = root.__caliperTimings = { matrixPaintedMs: null, lastRepaintMs: null, lastEngineMs: null,
    lastRenderMs: null, lastFullRepaintMs: null, lastFullEngineMs: null, lastCells: null };
  var repaintStart = 0;
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
      // A matrix still loading reloads when its view returns; a whole one stays.
      if (app.job && !app.job.done) app.job.cancelled = true;
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
    var ids = app.gpus.filter(function (g) {
      return C.state.matchesText([g.id, g.name].concat(g.aliases || []), state.gq);
    }).map(function (g) { return g.id; });
    return ids.length === app.gpus.length ? null : ids;
  }

  // The state keys that change the engine's answer; the others (metric,
  // sort, currency, language) only repaint the matrix already loaded.
  var DATA_KEYS = ['task', 'w', 'ctx', 'b', 'g', 'eng', 'tt', 'q', 'gq', 'fam', 'pmin', 'pmax', 'cls', 'mem', 'price', 'cm', 'cg'];
  function dataKey(state) {
    return JSON.stringify(DATA_KEYS.map(function (k) { return state[k]; })) + '#' + app.catalogGeneration;
  }

  // New data: the headers and the cells in view at once (painted in this
  // task), then every cell in one engine call after that frame is shown.
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
      job = loadJob(key, start);
    } catch (e) {
      app.job = null;
      showEngineError(e);
      return;
    }
    clearEngineErrors();
    paint(job, start, performance.now());
    if (!job.done) loadRestLater(job);
  }

  // A small matrix (up to twice the cells in view) is one call; a large one
  // starts with the cells in view.
  function loadJob(key, start) {
    var job = C.matrixData.start(app.state, gpuIds(app.state), app.catalogGeneration);
    job.key = key;
    var m = job.matrix;
    if (app.state.sort === 'gpu' && app.state.sg) C.matrixData.loadColumn(job, app.state.sg);
    var win = C.views.matrixWindow(m);
    if (m.models.length * m.gpus.length <= 2 * win.rows.length * win.cols.length) C.matrixData.loadRest(job);
    else C.matrixData.loadWindow(job, win.rows, win.cols);
    job.engineMs = performance.now() - start;
    app.job = job;
    app.matrix = m;
    noteRate(job);
    return job;
  }

  function noteRate(job) {
    if (typeof job.cnyPerUsd === 'number') app.cnyPerUsd = job.cnyPerUsd;
    else if (app.state.cur === 'cny' && app.cnyPerUsd === null) app.cnyPerUsd = exchangeRate();
  }

  // Writes the cells in view now (and the rest after the next frame when
  // every cell is loaded) and records the times.
  function paint(job, start, engineDone, immediate) {
    repaintStart = start;
    timings.lastFullRepaintMs = null;
    C.views.paintMatrix(job.matrix, { partial: !job.done, immediate: !!immediate,
      onComplete: function () { fullDone(job); } });
    void $('#matrix').offsetHeight;  // include style and layout in the measurement
    var end = performance.now();
    if (!immediate) {
      timings.lastEngineMs = round(engineDone - start);
      timings.lastRenderMs = round(end - engineDone);
      timings.lastRepaintMs = round(end - start);
    }
    reportMatrix(job);
    if (timings.matrixPaintedMs === null) {
      C.matrixFill.afterPaint(function () { timings.matrixPaintedMs = round(performance.now()); });
    }
  }

  function fullDone(job) {
    if (job !== app.job) return;
    timings.lastFullRepaintMs = round(performance.now() - repaintStart);
    timings.lastCells = job.matrix.models.length * job.matrix.gpus.length;
  }

  // The cells out of view: one engine call once the cells in view are on screen.
  function loadRestLater(job) {
    C.matrixFill.afterPaint(function () {
      if (job.cancelled || job !== app.job || job.done) return;
      var t = performance.now();
      try {
        C.matrixData.loadRest(job);
      } catch (e) {
        job.error = job.error || e;
      }
      timings.lastFullEngineMs = round(performance.now() - t);
      job.engineMs += performance.now() - t;
      noteRate(job);
      if (app.state.view === 'matrix') paint(job, repaintStart, t, true);
    });
  }

  // Same data, new presentation (metric, sort, currency, language). While the
  // rest is loading, the cells of the new view are loaded first.
  function repaintMatrix(start) {
    var job = app.job;
    try {
      if (!job.done && app.state.sort === 'gpu' && app.state.sg) C.matrixData.loadColumn(job, app.state.sg);
      if (!job.done) {
        var win = C.views.matrixWindow(job.matrix);
        C.matrixData.loadWindow(job, win.rows, win.cols);
      }
    } catch (e) {
      showEngineError(e);
      return;
    }
    paint(job, start, performance.now());
  }

  function reportMatrix(job) {
    if (job !== app.job || app.state.view !== 'matrix') return;
    if (job.error) { showEngineError(job.error, true); return; }
    setStatus(t('status.ready', { models: job.matrix.models.length, gpus: job.matrix.gpus.length, ms: Math.round(job.engineMs) }) +
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
    $('#export-json').addEventListener('click', function () {
      if (app.job) C.exporter.matrixJson(C.matrixData.complete(app.job), app.state, app.job.req);
    });
    window.addEventListener('hashchange', function () {
      if (location.hash.replace(/^#/, '') === C.state.serialize(app.state)) return;
      app.state = C.state.parse(location.search, location.hash);
      if (app.ready) C.views.refreshLists();
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
    bindGlobal();
    render({});
    setStatus(t('status.loading'));
    // Boot steps, in ms since the page started loading (for the benchmark).
    // The engine and the catalog text unpack side by side.
    timings.boot = { scriptsReady: round(performance.now()) };
    Promise.all([C.engine.init().then(function () { timings.boot.engineReady = round(performance.now()); }),
      C.engine.pageCatalog()]).then(function (done) {
      C.engine.loadCatalog(done[1].gpus, done[1].models);
      catalogChanged();
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
