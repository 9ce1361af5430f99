// "My GPUs": the user lists the cards they own; engine.inventory says which
// models they can run and fine-tune on them, and how fast.
import * as cells from '../matrix/cells.js';
import * as dom from '../dom/dom.js';
import * as engine from '../engine/engine.js';
import * as format from '../format/format.js';
import * as i18n from '../i18n/i18n.js';
import * as matrixView from '../matrix/view.js';
import { toInventoryRequest } from '../state/requests.js';

var $ = dom.$, el = dom.el;
var ctx = null;
var rows = null;  // the rows as typed, blank ones included (the URL keeps the filled ones)
var TASKS = ['inference', 'lora', 'qlora', 'full'];
var DEBOUNCE_MS = 300;
var timer = null;
var sortKey = null, sortDir = 1;  // the table's sort: null (the engine's order), 'name', 'size' or a task
// The inventory column of the page's task (the Task select).
var TASK_COLUMN = { inference: 'inference', serving: 'inference', lora: 'lora', qlora: 'qlora', full: 'full', pretrain: 'full' };

function init(options) {
  ctx = options;
  $('#inv-add').addEventListener('click', function () {
    rows.push({ gpu: '', count: 1 });
    drawRows();
    $('#inv-gpu-' + (rows.length - 1)).focus();
  });
  $('#inv-form').addEventListener('submit', function (e) {
    e.preventDefault();
    commit();
  });
}

function ensureRows() {
  if (rows) return;
  var s = ctx.app.state;
  rows = s.inv.length ? s.inv.map(function (i) { return { gpu: i.gpu, count: i.count }; }) : [{ gpu: '', count: 1 }];
}

var drawnLang = null;

function drawRows() {
  drawnLang = i18n.lang();
  var box = $('#inv-rows');
  dom.replace(box, rows.map(function (row, i) {
    var gpu = el('input', { id: 'inv-gpu-' + i, type: 'text', list: 'gpu-names', value: row.gpu, autocomplete: 'off',
      placeholder: '2080 Ti 22GB',
      // The name is checked when it is committed (Enter, leaving the field,
      // a pick from the list), not while it is half typed.
      oninput: function (e) { row.gpu = e.target.value; clearTimeout(timer); },
      onchange: function (e) { row.gpu = e.target.value; commit(); } });
    var count = el('input', { id: 'inv-count-' + i, type: 'number', min: '1', max: '1024', step: '1', value: String(row.count),
      oninput: function (e) { onCount(row, e.target); } });
    var remove = el('button', { type: 'button', class: 'btn small', onclick: function () {
      rows.splice(i, 1);
      if (!rows.length) rows.push({ gpu: '', count: 1 });
      drawRows();
      commit();
    } }, ctx.t('inv.remove'));
    return el('div', { class: 'inv-row' }, [
      el('div', { class: 'field gpu' }, [el('label', { for: 'inv-gpu-' + i }, ctx.t('inv.gpu')), gpu]),
      el('div', { class: 'field' }, [el('label', { for: 'inv-count-' + i }, ctx.t('inv.count')), count]), remove]);
  }));
}

function onCount(row, input) {
  var v = Number(input.value);
  if (!Number.isInteger(v) || v < 1 || v > 1024) {
    dom.fieldError(input, ctx.t('error.wholeNumber', { min: 1, max: 1024 }));
    return;
  }
  dom.fieldError(input, null);
  row.count = v;
  schedule();
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(commit, DEBOUNCE_MS);
}

function commit() {
  clearTimeout(timer);
  ctx.change({ inv: rows.filter(function (r) { return r.gpu.trim(); }).map(function (r) { return { gpu: r.gpu, count: r.count }; }) });
}

// label: the column's name, shown beside the cell where the phone layout
// stacks a row's cells (styles.css).
function taskCell(task, result, L, current) {
  var cls = current ? ' current' : '';
  var label = ctx.t('inv.' + task);
  if (!result) return el('td', { class: cls.trim() || null, dataset: { label: label } }, '—');
  if (!result.fits) {
    var needs = result.gpus_needed ? ' ' + ctx.t('inv.needs', { n: result.gpus_needed }) : '';
    return el('td', { class: 'no' + cls, title: result.rejection || null, dataset: { label: label } }, cells.SYMBOL_NO + needs);
  }
  var speed = task === 'inference' ? result.decode_tokens_per_s : result.train_tokens_per_s;
  // The GPUs it takes, beside the figure they give.
  var used = result.gpus_used ? ' ' + ctx.t(result.gpus_used === 1 ? 'inv.usesOne' : 'inv.uses', { n: result.gpus_used }) : '';
  var parts = [cells.SYMBOL_FITS + used];
  if (speed != null) parts.push(format.compact(L, speed) + ' ' + ctx.t('unit.tokPerS'));
  if (result.weights) parts.push(String(result.weights).toUpperCase());
  return el('td', { class: 'yes' + cls, dataset: { label: label } }, parts.join(' · '));
}

// A task's figure for sorting: speed where it runs, nothing where it does not.
function taskValue(row, k) {
  var x = row.tasks && row.tasks[k];
  if (!x || !x.fits) return null;
  var v = k === 'inference' ? x.decode_tokens_per_s : x.train_tokens_per_s;
  return typeof v === 'number' ? v : 0;
}

// The landing order, as the matrix's: current families first (by their
// newest release), each family's models by size.
function currentFirst(rows) {
  var byId = {};
  (ctx.app.models || []).forEach(function (m) { byId[m.id] = m; });
  var models = rows.map(function (r) {
    var m = byId[r.model_id] || {};
    return { family: m.family || r.model_name, params_b: r.params_b, release_date: m.release_date };
  });
  var out = [];
  matrixView.rowGroups({ models: models }, { sort: 'family', dir: 'asc' }).forEach(function (g) {
    g.rows.forEach(function (i) { out.push(rows[i]); });
  });
  return out;
}

// Whether the row's model runs the task on these GPUs.
function runs(row, task) { var x = row.tasks && row.tasks[task]; return !!(x && x.fits); }

// The landing order: the models that run the page's task (the Task
// select's column) on these GPUs first, then the others, each part in the
// matrix's order (current families first, a family's models by size), so
// the models a card holds are not lost below the newest ones it cannot.
function defaultOrder(rows) {
  var task = TASK_COLUMN[ctx.app.state.task];
  return currentFirst(rows.filter(function (r) { return runs(r, task); }))
    .concat(currentFirst(rows.filter(function (r) { return !runs(r, task); })));
}

function sortedRows(rows) {
  if (!sortKey) return defaultOrder(rows);
  return rows.slice().sort(function (a, b) {
    if (sortKey === 'name') return sortDir * String(a.model_name).localeCompare(String(b.model_name));
    var x = sortKey === 'size' ? a.params_b : taskValue(a, sortKey), y = sortKey === 'size' ? b.params_b : taskValue(b, sortKey);
    if (x == null || y == null) return x == null ? (y == null ? 0 : 1) : -1;  // nothing to show: last either way
    return sortDir * (x - y);
  });
}

function sortButton(key, label, numeric) {
  var on = sortKey === key;
  var th = el('th', { scope: 'col', class: numeric ? 'num' : null, 'aria-sort': on ? (sortDir > 0 ? 'ascending' : 'descending') : null },
    el('button', { type: 'button', class: 'sort', dataset: { sort: key }, onclick: function () {
      // Speeds sort best first; names and sizes from the smallest.
      if (sortKey === key) sortDir = -sortDir; else { sortKey = key; sortDir = key === 'name' || key === 'size' ? 1 : -1; }
      render();
      var again = document.querySelector('#inv-results button.sort[data-sort="' + key + '"]');
      if (again) again.focus();
    } }, label + (on ? (sortDir > 0 ? ' ▲' : ' ▼') : '')));
  return th;
}

// A model row opens the scenario on the owned GPUs the engine used for the
// page's task (or inference), at that count.
function openRow(row) {
  var s = ctx.app.state, task = TASK_COLUMN[s.task];
  var x = (row.tasks && (row.tasks[task] || row.tasks.inference)) || {};
  var gpu = x.gpu_id || (lastAnswer && lastAnswer.gpus && lastAnswer.gpus[0] && lastAnswer.gpus[0].id);
  if (!gpu) return;
  ctx.change({ cell: row.model_id + '~' + gpu, cnt: x.fits && x.gpus_used ? x.gpus_used : 'auto' });
}

function resultTable(r) {
  var L = i18n.locale(), current = TASK_COLUMN[ctx.app.state.task];
  var owned = (r.gpus || []).map(function (g) { return (g.count || 1) + ' × ' + g.name; }).join(' + ');
  var head = el('tr', null, [sortButton('name', ctx.t('inv.model')), sortButton('size', ctx.t('matrix.size'), true)]
    .concat(TASKS.map(function (k) {
      var th = sortButton(k, ctx.t('inv.' + k));
      if (k === current) th.classList.add('current');
      return th;
    })));
  var body = sortedRows(r.rows || []).map(function (row) {
    return el('tr', { dataset: { modelId: row.model_id } }, [
      el('th', { scope: 'row' }, el('button', { type: 'button', class: 'link', onclick: function () { openRow(row); } }, row.model_name)),
      el('td', { class: 'num' }, format.params(L, row.params_b))].concat(TASKS.map(function (k) {
      return taskCell(k, row.tasks && row.tasks[k], L, k === current);
    })));
  });
  // How the rows are ordered, until a header sorts them.
  var running = (r.rows || []).filter(function (row) { return runs(row, current); }).length;
  var order = sortKey ? null : el('p', { class: 'note', id: 'inv-order' }, ctx.t('inv.orderNote', { n: running, task: ctx.t('inv.' + current) }));
  return el('div', { class: 'panel table-scroll' }, [order, el('table', { class: 'plain inv-table' }, [
    el('caption', { class: 'note' }, ctx.t('inv.caption', { list: owned })), el('thead', null, head), el('tbody', null, body)])]);
}

var lastAnswer = null, lastKey = '';

function render() {
  ensureRows();
  // The rows on screen stay while they match (a committed name must not
  // replace the field the reader is moving to); redrawn for a new language
  // or another number of rows.
  if ($('#inv-rows').children.length !== rows.length || drawnLang !== i18n.lang()) drawRows();
  var s = ctx.app.state;
  var out = $('#inv-results');
  dom.$all('#inv-rows input[type="text"]').forEach(function (i) { dom.fieldError(i, null); });
  if (!s.inv.length) { dom.clear(out); return; }
  try {
    var req = toInventoryRequest(s), reqKey = JSON.stringify(req) + '|' + ctx.app.catalogGeneration;
    if (reqKey !== lastKey || !lastAnswer) { lastAnswer = engine.inventory(req); lastKey = reqKey; }
    dom.replace(out, resultTable(lastAnswer));
    ctx.setStatus('');
  } catch (e) {
    dom.clear(out);
    ctx.setStatus(i18n.errorText(e), true, i18n.errorDetail(e));
    var m = /^\/inventory\/(\d+)\/(gpu|count)/.exec(e.path || '');
    if (m) dom.fieldError($('#inv-' + m[2] + '-' + indexOfFilled(Number(m[1]))), i18n.errorText(e));
  }
}

// The request skips blank rows; map its index back to the row on screen.
function indexOfFilled(n) {
  var seen = -1;
  for (var i = 0; i < rows.length; i++) {
    if (rows[i].gpu.trim()) seen++;
    if (seen === n) return i;
  }
  return n;
}

export { init, render };
