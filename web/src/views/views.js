// Glue between the state and the views: paints the matrix with its caption,
// keeps the detail dialog in step with state.cell, and fills the lists that
// depend on the catalog and the language.
import * as cells from '../matrix/cells.js';
import * as customInput from './custom.js';
import * as customRows from '../state/custom-rows.js';
import * as detailView from './detail.js';
import * as dom from '../dom/dom.js';
import * as engine from '../engine/engine.js';
import * as format from '../format/format.js';
import * as i18n from '../i18n/i18n.js';
import * as inventoryView from './inventory.js';
import * as matrixView from '../matrix/view.js';
import * as recommendView from './recommend.js';
import * as serveView from './serve.js';
import { batchOf, currencyOf, isTraining } from '../state/defaults.js';
import { serialize } from '../state/url-codec.js';
import { toEstimateRequest } from '../state/requests.js';

var $ = dom.$, el = dom.el;
var ctx = null, matrixTable = null, detailKey = '';

function init(options) {
  ctx = options;
  matrixTable = matrixView.create($('#matrix'), { onOpen: openCell, onSort: sortBy });
  var dialog = $('#detail');
  $('#detail-close').addEventListener('click', function () { dialog.close(); });
  dialog.addEventListener('close', onDetailClosed);
  dialog.addEventListener('click', function (e) { if (e.target === dialog) dialog.close(); });
  recommendView.init(ctx);
  inventoryView.init(ctx);
  customInput.init(ctx);
  serveView.init(ctx);
}

function state() { return ctx.app.state; }
function locale() { return i18n.locale(); }

function openCell(modelId, gpuId) {
  ctx.change({ cell: modelId + '~' + gpuId, cnt: 'auto' });
}

// Header clicks: Model cycles family → name ↑ → name ↓; Params sorts by
// size; a GPU header sorts rows by that column, best first.
function sortBy(key, gpuId) {
  var s = state(), next = { sg: '' };
  if (key === 'name') {
    if (s.sort === 'family') { next.sort = 'name'; next.dir = 'asc'; }
    else if (s.sort === 'name' && s.dir === 'asc') { next.sort = 'name'; next.dir = 'desc'; }
    else { next.sort = 'family'; next.dir = 'asc'; }
  } else if (key === 'size') {
    next.sort = 'size';
    next.dir = s.sort === 'size' && s.dir === 'asc' ? 'desc' : 'asc';
  } else {
    var best = cells.higherIsBetter(s.show, isTraining(s)) ? 'desc' : 'asc';
    next.sort = 'gpu';
    next.sg = gpuId;
    next.dir = s.sort === 'gpu' && s.sg === gpuId ? (s.dir === 'asc' ? 'desc' : 'asc') : best;
  }
  ctx.change(next);
}

function weightsLabel(w) {
  var option = $('#weights option[value="' + w + '"]');
  return option ? option.textContent : w;
}

function figureNote(s) {
  var training = isTraining(s);
  var own = currencyOf(s, i18n.lang());
  var cur = (own === 'cny' && ctx.app.cnyPerUsd == null ? 'usd' : own).toUpperCase();
  var key = {
    speed: training ? 'matrix.figureSpeedTrain' : 'matrix.figureSpeedInfer',
    cost: training ? 'matrix.figureCostTrain' : 'matrix.figureCostInfer',
    memory: 'matrix.figureMemory', gpus: 'matrix.figureGpus',
    users: training ? 'matrix.figureSpeedTrain' : 'matrix.figureUsers'
  }[s.show];
  return ctx.t('matrix.figureNote', { what: ctx.t(key, { cur: cur }) });
}

// The batch as the caption says it: the micro-batch the engine searches
// per cell where training leaves it to the engine.
function batchText(s) {
  var b = batchOf(s);
  return b === 'auto' ? ctx.t('knob.auto').toLowerCase() : format.number(locale(), b, 0);
}

// opts: {partial: only the cells in view are loaded}
function paintMatrix(matrix, opts) {
  opts = opts || {};
  var s = state();
  var batchKey = isTraining(s) ? 'ctl.microBatch' : s.task === 'serving' ? 'ctl.concurrency' : 'ctl.batch';
  var caption = ctx.t('matrix.caption', {
    models: matrix.models.length, gpus: matrix.gpus.length, task: ctx.t('task.' + s.task), weights: weightsLabel(s.w),
    context: format.number(locale(), s.ctx, 0), batchLabel: ctx.t(batchKey), batch: batchText(s), maxGpus: s.g
  });
  if (!matrix.models.length || !matrix.gpus.length) caption += ' — ' + ctx.t('matrix.empty');
  // The caption and note first: the rows' places depend on them, and the
  // window's layout is then the repaint's only one. The caption's text in
  // a block of its own, so it wraps at the width in view, not the table's.
  var cap = $('#matrix caption');
  if (cap && cap.textContent !== caption) dom.replace(cap, el('span', { class: 'cap-text' }, caption));
  $('#figure-note').textContent = figureNote(s);
  matrixTable.render(matrix, { state: s, t: ctx.t, locale: locale(), lang: i18n.lang(), cnyPerUsd: ctx.app.cnyPerUsd,
    partial: !!opts.partial });
}

function matrixWindow(matrix, over) { return matrixTable.windowFor(matrix, state(), over); }

function render(view) {
  if (view === 'serve') serveView.render();
  else if (view === 'recommend') recommendView.render();
  else if (view === 'inventory') inventoryView.render();
  else if (view === 'custom') customInput.render();
}

function splitCell(cell) {
  var i = cell.indexOf('~');
  return i < 0 ? null : { model: cell.slice(0, i), gpu: cell.slice(i + 1) };
}

function syncDetail() {
  var s = state(), dialog = $('#detail');
  var ids = s.cell ? splitCell(s.cell) : null;
  if (!ids) {
    detailKey = '';
    if (dialog.open) dialog.close();
    return;
  }
  var key = JSON.stringify([serialize(s), i18n.lang()]);
  if (key === detailKey && dialog.open) return;
  detailKey = key;
  renderDetail(s, ids);
  if (!dialog.open) {
    if (typeof dialog.showModal === 'function') dialog.showModal(); else dialog.setAttribute('open', '');
  }
}

function renderDetail(s, ids) {
  var body = $('#detail-body');
  var model = customRows.modelRef(s, ids.model), gpu = customRows.gpuRef(s, ids.gpu);
  var mathOpen = !!($('#detail-math') && $('#detail-math').open);
  var gpuEntry = byId(ctx.app.gpus, ids.gpu);
  var dctx = { t: ctx.t, locale: locale(), currency: currencyOf(s, i18n.lang()), state: s, mathOpen: mathOpen,
    knobs: knobsFor(s, gpuEntry, null), change: ctx.change };
  try {
    var r = engine.estimate(toEstimateRequest(s, model, gpu, s.cnt, { apple: dctx.knobs.apple }));
    dctx.knobs = knobsFor(s, gpuEntry, r);
    if (r.cny_per_usd != null) ctx.app.cnyPerUsd = r.cny_per_usd;
    // The user's own model keeps the user's name, with what the engine
    // assumed to read it marked beside that name.
    var own = ids.model === customRows.MODEL_ID && s.cm;
    var warn = own ? i18n.warningText(customRows.readingWarnings(r)) : '';
    var modelName = own ? s.cm.name + (warn ? ' \u26a0' : '') : r.model.name || ids.model;
    $('#detail-title').textContent = ctx.t('detail.title', { model: modelName, gpu: r.gpu.name });
    $('#detail-title').title = warn;
    dctx.caveats = caveatTexts(r.gpu.caveats || []);
    dctx.gpuEntry = byId(ctx.app.gpus, r.gpu.id);
    dctx.modelEntry = byId(ctx.app.models, r.model.id);
    detailView.render(body, r, dctx);
  } catch (e) {
    $('#detail-title').textContent = ids.model + ' · ' + ids.gpu;
    $('#detail-title').title = '';
    detailView.renderError(body, e, dctx);
  }
}

// Which plan knobs apply: training's, llama.cpp/Ollama's (by the engine the
// estimate ran, else the one chosen), Apple's unified memory.
function knobsFor(s, gpuEntry, r) {
  var training = isTraining(s);
  return { training: training, inference: !training, engine: r && r.scenario ? r.scenario.engine : s.eng,
    apple: !!(gpuEntry && gpuEntry.vendor === 'apple') };
}

function byId(list, id) {
  for (var i = 0; i < list.length; i++) if (list[i].id === id) return list[i];
  return null;
}

// The catalog's caveat texts in the page language.
function caveatTexts(ids) {
  if (!ids.length) return [];
  var all = [];
  try { all = engine.caveats(); } catch (e) { return []; }
  var lang = i18n.lang();
  return all.filter(function (c) { return ids.indexOf(c.id) >= 0; }).map(function (c) { return { id: c.id, text: c[lang] || c.en }; });
}

function onDetailClosed() {
  var s = state();
  if (!s.cell) return;
  var ids = splitCell(s.cell);
  // The counts a plan knob sets are the model's and the GPU's: they go with the detail.
  ctx.change({ cell: '', cnt: 'auto', gpuLayers: null, cpuMoeLayers: null, wiredLimitGib: null });
  if (ids && s.view === 'matrix') matrixTable.focusCell(ids.model, ids.gpu);
}

// Selects and datalists built from the catalog (names as text nodes).
function refreshLists() {
  var app = ctx.app;
  var gpuNames = $('#gpu-names');
  dom.clear(gpuNames);
  app.gpus.forEach(function (g) { gpuNames.appendChild(el('option', { value: g.name })); });
  recommendView.refreshLists(app.models, app.gpus);
  serveView.refreshLists(app.models);
  customInput.refreshLists();
}

export { init, paintMatrix, matrixWindow, render, syncDetail, refreshLists, openCell, weightsLabel };
