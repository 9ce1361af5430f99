// Number formatting per locale. Only presentation: every figure it formats
// comes from the engine; this file picks digits, units and currency signs.
var cache = {};

function nf(locale, options) {
  var key = locale + JSON.stringify(options);
  if (!cache[key]) cache[key] = new Intl.NumberFormat(locale, options);
  return cache[key];
}

function isNum(v) { return typeof v === 'number' && isFinite(v); }

// Significant digits that suit the magnitude: 0.042, 3.7, 42, 4,200.
function digitsFor(v) {
  var a = Math.abs(v);
  if (a === 0 || a >= 100) return 0;
  if (a >= 10) return 1;
  if (a >= 1) return 2;
  return 3;
}

function number(locale, v, digits) {
  if (!isNum(v)) return '—';
  var d = digits == null ? digitsFor(v) : digits;
  return nf(locale, { maximumFractionDigits: d, minimumFractionDigits: 0 }).format(v);
}

// Short form for matrix cells: 7.4, 42, 1.2K (en) / 1.2万 (zh).
function compact(locale, v) {
  if (!isNum(v)) return '—';
  var a = Math.abs(v);
  if (a < 10) return nf(locale, { maximumFractionDigits: 1 }).format(v);
  if (a < 1000) return nf(locale, { maximumFractionDigits: 0 }).format(v);
  return shortened(locale, v, { notation: 'compact', maximumFractionDigits: 1 });
}

// Compact notation, whole numbers where the locale has no short form for
// the size (Chinese shortens from 1万 up: 8103, never 8103.4).
var shortensThousands = {};
function shortened(locale, v, options) {
  var f = nf(locale, options);
  if (!(locale in shortensThousands)) {
    shortensThousands[locale] = nf(locale, { notation: 'compact' }).formatToParts(1000).some(function (p) { return p.type === 'compact'; });
  }
  if (Math.abs(v) >= 1e4 || shortensThousands[locale]) return f.format(v);
  var whole = Object.assign({}, options, { maximumFractionDigits: 0, minimumFractionDigits: 0 });
  delete whole.notation;
  return nf(locale, whole).format(v);
}

// Money with the same decimals for the same size, so prices side by side
// line up ($0.30/h next to $0.22/h): two decimals below 100 (below 10 in
// the short form of the matrix cells), none above, two significant digits
// below 0.1 ($0.042), and 1.2K-style above 1,000 in the short form.
function money(locale, v, currency, short) {
  if (!isNum(v)) return '—';
  var code = String(currency || 'usd').toUpperCase();
  var a = Math.abs(v);
  var options = { style: 'currency', currency: code, currencyDisplay: 'narrowSymbol' };
  if (short && a >= 1000) {
    return shortened(locale, v, Object.assign(options, { notation: 'compact', maximumFractionDigits: 1, minimumFractionDigits: 0 }));
  } else if (a >= 100 || (short && a >= 10)) {
    options.maximumFractionDigits = 0;
    options.minimumFractionDigits = 0;
  } else if (a >= 0.1 || a === 0) {
    options.maximumFractionDigits = 2;
    options.minimumFractionDigits = 2;
  } else {
    options.maximumSignificantDigits = 2;
    options.minimumSignificantDigits = 2;
  }
  return nf(locale, options).format(v);
}

// Picks the engine's figure in the chosen currency: the `cny` twin of a
// `usd` key when present (cost_usd → cost_cny, usd_per_hour → cny_per_hour),
// else the engine's exchange rate (on the object or from another engine
// result), else USD.
function moneyField(obj, usdKey, currency, fallbackRate) {
  if (!obj || !isNum(obj[usdKey])) return { value: null, currency: currency };
  if (currency !== 'cny') return { value: obj[usdKey], currency: 'usd' };
  var cnyKey = usdKey.replace(/usd/, 'cny');
  if (isNum(obj[cnyKey])) return { value: obj[cnyKey], currency: 'cny' };
  var rate = isNum(obj.cny_per_usd) ? obj.cny_per_usd : fallbackRate;
  if (isNum(rate)) return { value: obj[usdKey] * rate, currency: 'cny' };
  return { value: obj[usdKey], currency: 'usd' };
}

// A figure's 80% band in an answer's `ranges` (docs/CONTRACT.md), or null.
function bandOf(ranges, key) {
  var b = ranges && ranges[key];
  return Array.isArray(b) && isNum(b[0]) && isNum(b[1]) ? b : null;
}

// " (44–58)" after a figure: its band, each end written by text(); '' without one.
function bandText(band, text) { return band ? ' (' + text(band[0]) + '–' + text(band[1]) + ')' : ''; }

function gib(locale, v) {
  if (!isNum(v)) return '—';
  return number(locale, v, v >= 100 ? 0 : 1) + ' GiB';
}

function params(locale, billions) {
  if (!isNum(billions)) return '—';
  var d = billions >= 100 ? 0 : billions >= 10 ? 0 : 1;
  return nf(locale, { maximumFractionDigits: d }).format(billions) + 'B';
}

// Hours → the unit a reader would use; units come from the dictionary.
function duration(locale, hours, units) {
  if (!isNum(hours)) return '—';
  if (hours < 1) return number(locale, hours * 60, 0) + ' ' + units.min;
  if (hours < 48) return number(locale, hours, hours < 10 ? 1 : 0) + ' ' + units.h;
  var days = hours / 24;
  if (days < 730) return number(locale, days, days < 10 ? 1 : 0) + ' ' + units.d;
  return number(locale, days / 365.25, 1) + ' ' + units.y;
}

function durationShort(locale, hours) {
  if (!isNum(hours)) return '—';
  if (hours < 1) return compact(locale, hours * 60) + 'm';
  if (hours < 48) return compact(locale, hours) + 'h';
  var days = hours / 24;
  if (days < 730) return compact(locale, days) + 'd';
  return compact(locale, days / 365.25) + 'y';
}

function seconds(locale, s, units) {
  if (!isNum(s)) return '—';
  if (s < 1) return number(locale, s * 1000, 0) + ' ' + units.ms;
  return number(locale, s, s < 10 ? 2 : 1) + ' ' + units.s;
}

function power(locale, watts) {
  if (!isNum(watts)) return '—';
  if (watts >= 10000) return number(locale, watts / 1000, 1) + ' kW';
  return number(locale, watts, 0) + ' W';
}

// Number input text → number, or null for empty; NaN marks bad text.
// Takes 1,000 / 2.5K / 1T / 1e12 / 1亿 / 1万亿.
function parseInput(textValue) {
  var s = String(textValue == null ? '' : textValue).trim().replace(/[,_\s]/g, '');
  if (!s) return null;
  var m = /^(\d+(?:\.\d+)?(?:[eE]\+?\d{1,3})?)([kKmMbBtT]|万亿|万|亿)?$/.exec(s);
  if (!m) return NaN;
  var scale = { '': 1, k: 1e3, K: 1e3, m: 1e6, M: 1e6, b: 1e9, B: 1e9, t: 1e12, T: 1e12, '万': 1e4, '亿': 1e8, '万亿': 1e12 }[m[2] || ''];
  return Number(m[1]) * scale;
}

// A token count as a field shows it, in the short form parseInput reads
// back exactly: 2T, 1.5T, 100M, 300B; other counts as digits.
function tokenCount(n) {
  if (!isNum(n)) return '';
  var units = [[1e12, 'T'], [1e9, 'B'], [1e6, 'M'], [1e3, 'K']];
  for (var i = 0; i < units.length; i++) {
    var v = n / units[i][0];
    if (v >= 1 && v < 1000 && Math.round(v * 100) / 100 === v && parseInput(v + units[i][1]) === n) return v + units[i][1];
  }
  return String(n);
}

export { number, compact, money, moneyField, bandOf, bandText, gib, params, duration, durationShort, seconds, power, parseInput, tokenCount, isNum };
