// Translation: picks the language, looks up texts (with {name} placeholders),
// translates engine codes (warnings, suggestions, rules, reasons) with the
// engine's English message as the fallback, and fills data-i18n attributes.
import { codes } from './codes.js';
import { en } from './en.js';
import { formulas } from './formulas.js';
import { zh } from './zh.js';
import { unpackText } from '../engine/unpack.js';

var LANGS = ['en', 'zh'];
var messages = { en: en, zh: zh };
var current = 'en';

function dictionaries() { return messages; }

// The single file carries the texts packed (window.CALIPER_I18N,
// scripts/build-web.js: the tables are data, a third of their size
// gzip-compressed) and its bundle holds empty tables; they are filled
// before the page starts. Unpacking begins as this script runs.
var unpacked = null;
function ready() {
  if (unpacked) return unpacked;
  var packed = globalThis.CALIPER_I18N;
  unpacked = !packed ? Promise.resolve() : unpackText(packed).then(function (text) {
    var tables = JSON.parse(text);
    LANGS.forEach(function (lang) {
      Object.assign(messages[lang], tables.messages[lang]);
      Object.assign(codes[lang], tables.codes[lang]);
    });
    Object.assign(formulas.zh, tables.formulas.zh);
    phrases = null;
  });
  return unpacked;
}
if (typeof document !== 'undefined') ready().catch(function () { /* the page starts with the texts it has */ });

// 'zh-CN', 'zh-TW', 'zh' → 'zh'; anything else → 'en'.
function normalize(tag) {
  var s = String(tag || '').toLowerCase();
  if (s.indexOf('zh') === 0) return 'zh';
  if (s.indexOf('en') === 0) return 'en';
  return null;
}

function pick(requested, browserLanguages) {
  var fromUrl = normalize(requested);
  if (fromUrl) return fromUrl;
  var list = browserLanguages || [];
  for (var i = 0; i < list.length; i++) {
    var lang = normalize(list[i]);
    if (lang) return lang;
  }
  return 'en';
}

// {name} → the value; {name|one|many} → the value and the word that suits
// it ("1 model", "8 GPUs"), for languages that inflect.
function fill(text, params) {
  if (!params) return text;
  return text.replace(/\{(\w+)(?:\|([^|{}]*)\|([^{}]*))?\}/g, function (whole, name, one, many) {
    if (!Object.prototype.hasOwnProperty.call(params, name)) return whole;
    var v = String(params[name]);
    if (one === undefined) return v;
    return v + ' ' + (Number(v.replace(/,/g, '')) === 1 ? one : many);
  });
}

function t(key, params) {
  var d = dictionaries();
  var text = (d[current] && d[current][key]) || (d.en && d.en[key]);
  return fill(text == null ? key : text, params);
}

function has(key) {
  var d = dictionaries();
  return !!(d[current] && d[current][key]);
}

// A text shown on its own (a warning, a note, an error) as a sentence: the
// engine writes its messages to follow a colon or a code ("no GPU matches
// …"), so its first letter is raised. A first word that is a name written
// in small letters (llama.cpp, vLLM, an id such as rtx-4090) stays as it is.
function sentence(text) {
  var s = String(text);
  var first = /^[^\s:;,]*/.exec(s)[0];
  if (!/^[a-z]/.test(first) || /[A-Z0-9._\-\/]/.test(first.slice(1))) return s;
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// Engine codes: kind is 'warn' | 'sugg' | 'rule' | 'reason' | 'term' | 'error'
// | 'why'. The why texts follow a colon in a list, so they stay as written;
// the others stand alone and read as sentences.
var FRAGMENT_KINDS = ['why', 'term'];
function code(kind, value, fallback) {
  var text = codeText(kind, value, fallback);
  return FRAGMENT_KINDS.indexOf(kind) < 0 ? sentence(text) : text;
}

// A code table's text in the page's language only (no English fallback):
// a template the page fills itself, or null.
function codeTemplate(key) { return (codes[current] || {})[key] || null; }

function codeText(kind, value, fallback) {
  var tables = codes;
  var key = kind + '.' + value;
  var text = (tables[current] || {})[key];
  if (text) return text;
  if (fallback) return fallback;
  text = (tables.en || {})[key];
  if (text) return text;
  var words = String(value).replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

// An engine error for people. English: the engine's message (it names the
// value and what was expected). Other languages: the code's translation,
// the value the message quotes and the name it suggests, with the JSON
// pointer; the English message stays as the secondary detail
// (errorDetail, shown as the element's title).
function errorText(err) {
  var message = (err && (err.message || err.code)) || '';
  if (current === 'en') return sentence(message);
  var summary = code('error', err && err.code, '') || code('error', 'generic', '');
  var quoted = /['"\u201c]([^'"\u201d]{1,80})['"\u201d]/.exec(message);
  var mean = /did you mean ['"\u201c]([^'"\u201d]{1,80})['"\u201d]/.exec(message);
  var text = summary;
  var expected = expectation(message);
  if (expected) return text + '\uff1a' + expected;
  if (quoted && !(mean && mean.index < quoted.index)) text += '\uff1a\u201c' + quoted[1] + '\u201d';
  if (mean) text += t('error.didYouMean', { name: mean[1] });
  return text;
}

// Warnings ({code, message}) as one text in the page's language.
function warningText(warnings) {
  return (warnings || []).map(function (w) { return code('warn', w.code, w.message); }).join(' ');
}

// What the engine expected and got, in the page's words, for the forms its
// JSON reader writes (core/src/json/json_read.cpp: "expected a number at
// most 2048, got 99999"); null for any other message.
var EXPECTED = [[/^a positive number$/, 'positive'], [/^a non-negative number$/, 'nonNegative'],
  [/^a number at most (\S+)$/, 'atMost'], [/^a number of at least (\S+)$/, 'atLeast'],
  [/^an integer from (-?\d+) to (-?\d+)$/, 'integerRange'], [/^a number$/, 'number'], [/^an integer$/, 'integer'],
  [/^a string$/, 'text']];
function expectation(message) {
  var m = /(?:^|: )expected (.+?)(?:, got (.{1,80}))?$/.exec(String(message));
  if (!m) return null;
  for (var i = 0; i < EXPECTED.length; i++) {
    var e = EXPECTED[i][0].exec(m[1]);
    if (!e) continue;
    var key = EXPECTED[i][1];
    var text = t('error.expect.' + key, key === 'integerRange' ? { a: e[1], b: e[2] } : { n: e[1] });
    if (m[2] != null) text += t('error.got', { value: /^["']/.test(m[2]) ? '\u201c' + m[2].replace(/^["']|["']$/g, '') + '\u201d' : m[2] });
    return text;
  }
  return null;
}

// The engine's own English message, where errorText gave a translation.
function errorDetail(err) {
  if (current === 'en') return '';
  return String((err && err.message) || '');
}

function setLang(lang) {
  current = LANGS.indexOf(lang) >= 0 ? lang : 'en';
  return current;
}

function locale() { return current === 'zh' ? 'zh-CN' : 'en'; }

// Fills text, placeholders, titles and labels from data-i18n* attributes.
function apply(rootEl) {
  var attrs = [['data-i18n', null], ['data-i18n-placeholder', 'placeholder'],
    ['data-i18n-title', 'title'], ['data-i18n-aria', 'aria-label']];
  attrs.forEach(function (pair) {
    var nodes = rootEl.querySelectorAll('[' + pair[0] + ']');
    for (var i = 0; i < nodes.length; i++) {
      var text = t(nodes[i].getAttribute(pair[0]));
      if (pair[1]) nodes[i].setAttribute(pair[1], text);
      else nodes[i].textContent = text;
    }
  });
}

function lang() { return current; }

// An engine formula (explain[].formula) in the page's language: English as
// the engine wrote it; in Chinese its phrases swapped for the table's
// (i18n/formulas.js), longest first, figures, symbols and names kept; null
// where an English word is left over (the page then shows the English).
var phrases = null;
function formula(text) {
  var s = String(text == null ? '' : text);
  if (current === 'en') return s;
  var table = formulas[current];
  if (!table) return null;
  if (!phrases) {
    var keys = Object.keys(table).sort(function (a, b) { return b.length - a.length; });
    phrases = keys.length ? new RegExp('(?<![A-Za-z0-9_])(?:' + keys.map(function (k) {
      return k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }).join('|') + ')(?![A-Za-z0-9_])', 'g') : /(?!)/g;
  }
  var out = s.replace(phrases, function (m) { return table[m]; })
    .replace(/ {2,}/g, ' ').replace(/ +([，：；、（）;,])/g, '$1').replace(/([（：，]) +/g, '$1');
  return untranslated(out).length ? null : out;
}

// The English words left in a text: words of two letters or more in small
// letters, apart from quantity names and symbols (bf16, lm_head, n_ctx,
// llama.cpp, fp8-block), product and package names (vllm, sglang,
// flash-attention) and units written in
// small letters (ms).
var NAMES = ['vllm', 'sglang', 'ollama', 'mlx', 'megatron', 'deepspeed', 'transformers', 'fsdp', 'unsloth', 'torchtune',
  'tensorrt-llm', 'adamw', 'sgd', 'adafactor', 'ggml', 'nvidia-smi', 'pytorch', 'torch', 'cuda', 'bitsandbytes', 'mmproj',
  'busbw', 'flash-attention', 'max', 'auto', 'caliper', 'token', 'eager', 'all-reduce', 'reduce', 'allgather', 'hidden', 'tp', 'pp', 'dp', 'ep', 'cp', 'vp', 'ms', 'logits', 'ln', 'cn-hangzhou', 'accelerate'];
function untranslated(text) {
  var out = [], re = /[A-Za-z][A-Za-z'\u2019-]*/g, m;
  var s = String(text);
  while ((m = re.exec(s))) {
    var w = m[0].replace(/[-'\u2019]+$/, ''), i = m.index, before = s.charAt(i - 1), after = s.charAt(i + m[0].length);
    if (w.length < 2 || /[A-Z]/.test(w) || NAMES.indexOf(w) >= 0) continue;
    // A cloud region id (cn-shanghai, us-east): a name.
    if (/^(cn|us|eu|ap)-[a-z]+$/.test(w)) continue;
    // Part of a name: bf16, lm_head, d_attn, fp8-block, llama.cpp, pytorch#86509.
    if (/[_0-9#\-./]/.test(before) || /[_0-9]/.test(after) || (after === '.' && /[a-z]/.test(s.charAt(i + m[0].length + 1)))) continue;
    out.push(w);
  }
  return out;
}

export { LANGS, normalize, pick, fill, t, has, code, codeTemplate, sentence, errorText, errorDetail, warningText, setLang, lang, locale, apply, dictionaries, ready, formula, untranslated };
