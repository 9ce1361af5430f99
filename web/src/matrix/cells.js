// What a matrix cell shows: a symbol for the fit (so colour is never the only
// signal) and one key figure chosen by the "cells show" control. Pure.
import * as format from '../format/format.js';


var SYMBOL_FITS = '✓';
var SYMBOL_NO = '✗';
var SYMBOL_NVLINK = '⇌';
var SYMBOL_NODES = '⊞';
// Fits by the estimate but not by its 80% band (the matrix cell's tight,
// the estimate's fit "tight").
var SYMBOL_TIGHT = '≈';

function isTight(cell) { return !!cell && (cell.tight === true || cell.fit === 'tight') && cell.status !== 'no'; }

// Users at the SLO that meet it by the estimate only: fewer do at the slow
// end of the serving bands (users_at_slo_low, serve's slo_margin "tight").
function sloTight(cell) {
  var low = cell && cell.users_at_slo_low;
  return typeof low === 'number' && isFinite(low) && typeof cell.users_at_slo === 'number' && low < cell.users_at_slo;
}

// The count of the plan the cell's figures are for (the engine's gpu_count;
// gpus_needed, the fewest that fit, can be fewer where the objective chose more).
function planCount(cell) { return cell.gpu_count != null ? cell.gpu_count : cell.gpus_needed; }

// metric, training (optional): the figure the cell shows below the symbol.
// A users-at-SLO band leaves no room beside it for its FP8 mark, which
// then follows the symbol.
function symbol(cell, metric, training) {
  if (cell === null) return '';  // not loaded yet
  if (!cell) return SYMBOL_NO;
  var mark = fp8OnSymbol(cell, metric, training) ? ' FP8' : '';
  var tight = isTight(cell) ? SYMBOL_TIGHT : '';
  return fitSymbol(cell, tight) + (cell.status === 'no' ? '' : mark);
}

function fitSymbol(cell, tight) {
  switch (cell.status) {
    case 'fits': return tight || SYMBOL_FITS;
    case 'fits-multi': return planCount(cell) + '×' + (cell.needs_nvlink ? SYMBOL_NVLINK : '') + tight;
    case 'multi-node': return planCount(cell) + '×' + SYMBOL_NODES + tight;
    default: return SYMBOL_NO;
  }
}

function fp8OnSymbol(cell, metric, training) {
  return !!cell && !!metric && cell.users_at_slo_fp8 === true && sloTight(cell) && figureKey(cell, metric, training) === 'users_at_slo';
}

// The cell's key: which engine field the metric shows for this task.
function figureKey(cell, metric, training) {
  switch (metric) {
    case 'cost':
      if (training) return cell && cell.cost_usd != null ? 'cost_usd' : 'usd_per_hour';
      return cell && cell.usd_per_million_tokens != null ? 'usd_per_million_tokens' : 'usd_per_hour';
    case 'memory': return 'total_gib';
    case 'gpus': return cell && cell.gpu_count != null ? 'gpu_count' : 'gpus_needed';  // the plan's count
    case 'users':  // users at the SLO: an inference figure
      if (!training) return 'users_at_slo';
      return cell && cell.train_hours != null ? 'train_hours' : 'train_tokens_per_s';
    default:
      if (training) return cell && cell.train_hours != null ? 'train_hours' : 'train_tokens_per_s';
      // A speech, embedding or diffusion model has no tokens/s: its own figure
      // (docs/CONTRACT.md "Workloads": the cell's workload_figure).
      return cell && cell.decode_tokens_per_s == null && cell.workload_figure != null ? 'workload_figure' : 'decode_tokens_per_s';
  }
}

function isMoney(key) { return key.indexOf('usd') >= 0; }

// Figure value for sorting (null = nothing to show), best first direction.
function sortValue(cell, metric, training) {
  if (!cell || cell.status === 'no') return null;
  var v = cell[figureKey(cell, metric, training)];
  return typeof v === 'number' && isFinite(v) ? v : null;
}

// Larger is better for speed in tokens/s; smaller for everything else.
function higherIsBetter(metric, training) { return (metric === 'speed' || metric === 'users') && !training; }

// Short text for the cell. opts: {locale, currency, cnyPerUsd}
function figureText(cell, metric, training, opts) {
  if (!cell || cell.status === 'no') return '';
  var key = figureKey(cell, metric, training);
  var v = cell[key];
  if (typeof v !== 'number' || !isFinite(v)) return '–';
  if (key === 'train_hours') return format.durationShort(opts.locale, v);
  if (key === 'users_at_slo') {
    var count = function (n) { return n >= 1e4 ? format.compact(opts.locale, n) : String(n); };
    // Its band, as serve's slo_margin holds the SLO: "37–48" where 48 meet it
    // by the estimate and 37 at the slow end of the 80% band (tight above 37).
    var users = sloTight(cell) ? count(cell.users_at_slo_low) + '–' + count(v) : count(v);
    // Marked where the figure is with FP8 weights/KV the request left open
    // (the engine's users_at_slo_fp8): here, or after the symbol beside a band.
    return cell.users_at_slo_fp8 && !fp8OnSymbol(cell, metric, training) ? users + ' FP8' : users;
  }
  if (key === 'gpu_count' || key === 'gpus_needed') return String(v);
  if (isMoney(key)) {
    var m = format.moneyField(cell, key, opts.currency, opts.cnyPerUsd);
    return format.money(opts.locale, m.value, m.currency, true);
  }
  return format.compact(opts.locale, v);
}

// Status words for exports and screen-reader labels.
function statusKey(cell) {
  if (!cell) return 'no';
  if (isTight(cell) && cell.status === 'fits') return 'tight';
  return cell.status === 'fits-multi' && cell.needs_nvlink ? 'fits-multi-nvlink' : cell.status;
}

export { SYMBOL_TIGHT, isTight, sloTight, SYMBOL_FITS, SYMBOL_NO, SYMBOL_NVLINK, SYMBOL_NODES, symbol, figureKey, sortValue, higherIsBetter, figureText, statusKey, isMoney };
