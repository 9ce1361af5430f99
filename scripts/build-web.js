#!/usr/bin/env node
// Builds the web page into dist/:
//   dist/index.html (+ styles.css, js/caliper.js, caliper-engine.js,
//                   engine-wasm.js, catalog.js)  the site
//   dist/caliper.html  one self-contained file (CSS, page script, engine and
//                      catalog inlined) that works from file:// with no network
// Usage: node scripts/build-web.js --engine build-wasm/wasm/caliper-engine.js --out dist
//        [--data data] [--web web] [--unlzma PATH (default: caliper-unlzma.wasm beside the engine)]
// The page's ES modules (web/src, entry main.js) are bundled by esbuild into
// one minified classic script (an IIFE: no modules at run time, so it runs
// from file://). Every page carries a Content-Security-Policy that allows no
// remote origin; the single file lists sha256 hashes of its inline scripts
// and style instead of 'unsafe-inline'.
'use strict';
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const zlib = require('zlib');
const os = require('os');
const { spawnSync } = require('child_process');
const esbuild = require('esbuild');

const ENTRY = 'src/main.js';  // under --web
const BUNDLE = 'js/caliper.js';  // the site's page script, under --out
const LOADER = 'src/loader.js';  // the single file's loader, under --web
const SIZE_TARGET_BYTES = 600 * 1024;

// The gzip streams the single file carries (wasm, catalog, text tables):
// Zopfli where Debian's zopfli is installed (scripts/setup.sh installs it),
// the same gzip format DecompressionStream reads and 4-5% smaller than
// zlib's level 9 (the wasm module 295.3 -> 281.9 KB); zlib's level 9
// otherwise, with a warning, since the page then grows.
let zopfliMissing = false;
function gzipBest(bytes) {
  if (!zopfliMissing) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'caliper-gz-'));
    try {
      const file = path.join(dir, 'data');
      fs.writeFileSync(file, bytes);
      const run = spawnSync('zopfli', ['-c', file], { maxBuffer: 256 * 1024 * 1024 });
      if (run.status === 0 && run.stdout.length > 0) return run.stdout;
      zopfliMissing = true;
      console.warn('warning: zopfli not found (Debian package zopfli); gzip level 9 makes the single file larger');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  return zlib.gzipSync(bytes, { level: 9 });
}

// LZMA streams (the single file's engine module and catalog): `xz
// --format=lzma` at its strongest preset, which packs them 21% and 15%
// smaller than Zopfli (the module 367.7 -> 288.5 KB, the catalog 136.6 ->
// 116.1 KB). The page unpacks them with its own small decoder module
// (wasm/unlzma.cpp, built beside the engine), which costs ~16 ms of CPU for
// the module's 1 MB and ~6 ms for the catalog, so the texts the page needs
// first (its code, the text tables) stay gzip, which the browser inflates
// natively. lc=3 lp=0 pb=0: byte-aligned data, no 4-byte structure to
// model (pb=2 was 0.3% larger). Null where xz is missing.
const LZMA_OPTIONS = ['--format=lzma', '--lzma1=preset=9e,lc=3,lp=0,pb=0', '-c'];
function lzmaBest(bytes) {
  const run = spawnSync('xz', LZMA_OPTIONS, { input: bytes, maxBuffer: 256 * 1024 * 1024 });
  return run.status === 0 && run.stdout.length > 0 ? run.stdout : null;
}

// The decoder module the single file carries to unpack its LZMA streams
// (gzip, written a byte a character), or null where the build has none
// (the engine built before it) or xz is missing: then every stream is gzip.
function lzmaDecoder(enginePath, decoderPath) {
  const file = decoderPath || path.join(path.dirname(enginePath), 'caliper-unlzma.wasm');
  if (!fs.existsSync(file)) {
    console.warn(`warning: no LZMA decoder at ${file}; the single file's streams stay gzip (larger)`);
    return null;
  }
  if (!lzmaBest(Buffer.from('caliper'))) {
    console.warn('warning: xz not found (Debian package xz-utils); the single file\'s streams stay gzip (larger)');
    return null;
  }
  const gz = gzipBest(fs.readFileSync(file));
  return `window.CALIPER_UNLZMA={b8:"${b8Encode(gz)}",length:${gz.length}};\n`;
}

// Bytes packed for the single file's script: LZMA where the page has its
// decoder ({b8, length, lzma: the unpacked length}), gzip otherwise.
function packedFields(bytes, lzma) {
  const lz = lzma ? lzmaBest(bytes) : null;
  if (lz) return `b8:"${b8Encode(lz)}",length:${lz.length},lzma:${bytes.length}`;
  const gz = gzipBest(bytes);
  return `b8:"${b8Encode(gz)}",length:${gz.length}`;
}

function parseArgs(argv) {
  const args = { engine: null, out: 'dist', data: 'data', web: 'web', unlzma: null };
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in args) || i + 1 >= argv.length) throw new Error(`unknown or incomplete option: ${argv[i]}`);
    args[key] = argv[++i];
  }
  if (!args.engine) throw new Error('--engine PATH is required (the built caliper-engine.js)');
  return args;
}

function read(file) { return fs.readFileSync(file, 'utf8'); }

// The text tables (web/src/i18n): data, not code. The single file carries
// them packed (CALIPER_I18N, gzip written a byte a character: 47 KB of
// script became 30.7 KB of the file) and its bundle gets empty tables in their place,
// which i18n.ready() fills before the page starts.
const TEXT_TABLES = {
  'en.js': 'export var en = {};',
  'zh.js': 'export var zh = {};',
  'codes.js': 'export var codes = { en: {}, zh: {} };',
  'formulas.js': 'export var formulas = { zh: {} };'
};

function textTables(webDir) {
  const result = esbuild.buildSync({
    stdin: {
      contents: "import { en } from './en.js'; import { zh } from './zh.js'; import { codes } from './codes.js';\n" +
        "import { formulas } from './formulas.js';\n" +
        'module.exports = { messages: { en, zh }, codes, formulas };',
      resolveDir: path.join(webDir, 'src/i18n')
    },
    bundle: true, format: 'cjs', write: false, logLevel: 'silent'
  });
  const module = { exports: {} };
  new Function('module', result.outputFiles[0].text)(module);
  return JSON.stringify(module.exports);
}

function packedTablesScript(webDir) {
  const gz = gzipBest(Buffer.from(textTables(webDir), 'utf8'));
  return `window.CALIPER_I18N={b8:"${b8Encode(gz)}",length:${gz.length}};\n`;
}

// esbuild plugin: the text tables' modules as empty tables.
function emptyTextTables(webDir) {
  const dir = path.join(webDir, 'src/i18n');
  return {
    name: 'empty-text-tables',
    setup(build) {
      build.onLoad({ filter: /[\\/]i18n[\\/](en|zh|codes|formulas)\.js$/ }, (args) => {
        const name = path.basename(args.path);
        if (path.dirname(args.path) !== dir || !TEXT_TABLES[name]) return undefined;
        return { contents: TEXT_TABLES[name], loader: 'js' };
      });
    }
  };
}

// The page's modules as one minified classic script. charset utf8 keeps the
// Chinese dictionary as UTF-8 text (3 bytes a character) rather than \u
// escapes (6); no legal comments (the page has none to keep).
const BUNDLE_OPTIONS = { bundle: true, format: 'iife', minify: true, charset: 'utf8', legalComments: 'none', write: false,
  logLevel: 'silent', target: 'es2020', metafile: true };
function bundlePage(webDir) {
  const result = esbuild.buildSync(Object.assign({ entryPoints: [path.join(webDir, ENTRY)] }, BUNDLE_OPTIONS));
  return { code: result.outputFiles[0].text, metafile: result.metafile };
}

// The same with the text tables left out (the single file; plugins need
// esbuild's asynchronous build).
async function bundlePageWithoutTexts(webDir) {
  const result = await esbuild.build(Object.assign({ entryPoints: [path.join(webDir, ENTRY)],
    plugins: [emptyTextTables(path.resolve(webDir))] }, BUNDLE_OPTIONS));
  return { code: result.outputFiles[0].text, metafile: result.metafile };
}

// The import graph esbuild followed: file → the files it imports.
function importGraph(metafile) {
  const graph = {};
  for (const [file, info] of Object.entries(metafile.inputs)) graph[file] = info.imports.map((i) => i.path);
  return graph;
}

// Binary data in a UTF-8 script (the site's engine-wasm.js: the wasm's gzip
// stream) as text, 7 bits a character (the single file, a windows-1252
// document, writes a byte a character: b8Encode below). A "..." string
// inside <script> holds every ASCII character
// as it is except these six (NUL becomes U+FFFD and CR a line feed in the
// HTML parser, LF ends the string, " and \ are the string's own, < could
// close the element), so 122 of 128 seven-bit values are one byte of UTF-8.
// One of the six is sent with the next seven bits inside one two-byte
// character, U+0100 + index × 128 + next (U+0400 + index when it is the
// last): still 7 bits a byte. 8/7 ≈ 1.14 characters a byte, against Z85's
// 1.25 and base64's 1.33 (the idea of Kevin Albertson's base-122). The
// bits are padded with zeros; the page trims to the recorded length.
const B122_ILLEGAL = [0, 10, 13, 34, 60, 92];
const B122_LAST = 0x100 + 6 * 128;
function b122Encode(bytes) {
  const totalBits = bytes.length * 8;
  let bit = 0;
  const next7 = () => {
    if (bit >= totalBits) return -1;
    let v = 0;
    for (let k = 0; k < 7; k++, bit++) v = (v << 1) | (bit < totalBits ? (bytes[bit >> 3] >> (7 - (bit & 7))) & 1 : 0);
    return v;
  };
  const out = [];
  for (let v = next7(); v >= 0; v = next7()) {
    const illegal = B122_ILLEGAL.indexOf(v);
    if (illegal < 0) { out.push(v); continue; }
    const n = next7();
    out.push(n < 0 ? B122_LAST + illegal : 0x100 + illegal * 128 + n);
  }
  let text = '';
  for (let i = 0; i < out.length; i += 8192) text += String.fromCharCode.apply(null, out.slice(i, i + 8192));
  return text;
}

// The single file is a windows-1252 document: every byte of it one
// character, so binary data can be written a byte a character (b8Encode),
// where UTF-8 carries 7 bits a byte (b122Encode): 8/7 against 1.03
// characters a byte. Measured: the single file 599.4 → 539.8 KiB (wasm
// 390.2 → 350.6 KB, catalog 116.9 → 105.0, code 69.9 → 63.0, text tables
// 34.1 → 30.7; the loader 1.6 → 2.2 KB with its charset check); first
// paint and the matrix unchanged within the noise (page-bench, same minutes). The browser decodes
// the bytes 0x80-0x9F to the characters below (WHATWG Encoding Standard,
// index-windows-1252; Node's TextDecoder does not, so the table is written
// out here and in web/src/engine/unpack.js), every other byte to the
// character of its own number. Outside the data the file is ASCII: the
// markup's other characters become character references, the loader's
// \u escapes.
const WINDOWS_1252_C1 = [0x20AC, 0x81, 0x201A, 0x192, 0x201E, 0x2026, 0x2020, 0x2021, 0x2C6, 0x2030, 0x160, 0x2039,
  0x152, 0x8D, 0x17D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x2DC, 0x2122, 0x161,
  0x203A, 0x153, 0x9D, 0x17E, 0x178];
const CHAR_OF_BYTE = Array.from({ length: 256 }, (_, b) =>
  String.fromCharCode(b >= 0x80 && b < 0xa0 ? WINDOWS_1252_C1[b - 0x80] : b));
const BYTE_OF_CHAR = new Map(CHAR_OF_BYTE.map((c, b) => [c.charCodeAt(0), b]));

// Bytes as a script string, a character each, in a windows-1252 document.
// The values a "..." string inside <script> cannot hold as they are (NUL
// becomes U+FFFD and CR a line feed in the HTML parser, LF ends the string,
// " and \ are the string's own, < could close the element) and the escape
// '~' itself are written '~' and a digit, their place in B8_ESCAPED: 7 of
// 256 values take two characters.
const B8_ESCAPED = [0, 10, 13, 34, 60, 92, 126];
function b8Encode(bytes) {
  const out = new Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const k = B8_ESCAPED.indexOf(bytes[i]);
    out[i] = k < 0 ? CHAR_OF_BYTE[bytes[i]] : '~' + String.fromCharCode(48 + k);
  }
  return out.join('');
}

// A document's text as windows-1252 bytes, and back (as a browser reads it).
function toWindows1252(text) {
  const bytes = Buffer.alloc(text.length);
  for (let i = 0; i < text.length; i++) {
    const b = BYTE_OF_CHAR.get(text.charCodeAt(i));
    if (b === undefined) throw new Error(`U+${text.charCodeAt(i).toString(16)} has no windows-1252 byte (at ${i})`);
    bytes[i] = b;
  }
  return bytes;
}
function fromWindows1252(bytes) {
  let text = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    text += Array.from(bytes.subarray(i, i + 8192), (b) => CHAR_OF_BYTE[b]).join('');
  }
  return text;
}

// The engine's glue script (Emscripten's loader), minified for the single
// file. Whitespace and local names only: the names Embind looks up are
// properties, which minification keeps.
function minifyScript(text) {
  return esbuild.transformSync(text, { minify: true, charset: 'utf8', legalComments: 'none', logLevel: 'silent' }).code;
}

// The style sheet minified for the single file (comments, whitespace, the
// shorter form of colours and numbers: 23.8 → 19.4 KB).
function compactCss(text) {
  return esbuild.transformSync(text, { loader: 'css', minify: true, charset: 'utf8', legalComments: 'none', logLevel: 'silent' }).code.trim();
}

// Text placed inside <script> or <style> must not close the element early.
function escapeInline(text) {
  return text.replace(/<\/(script|style)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

function catalogTexts(dataDir) {
  const minify = (file) => JSON.stringify(JSON.parse(read(path.join(dataDir, file))));
  return { gpus: minify('gpus.json'), models: minify('models.json') };
}

// The two catalog texts, minified, as a classic script (the site).
function catalogScript(dataDir) {
  const t = catalogTexts(dataDir);
  return `window.CALIPER_CATALOG={gpus:${JSON.stringify(t.gpus)},models:${JSON.stringify(t.models)}};\n`;
}

// A list of catalog entries by column (the single file): each key once,
// its values side by side, so the sources and notes of all entries sit
// together within gzip's 32 KB window (the catalog's gzip stream 88.9 →
// 77.0 KB). `missing` lists, per key, the entries that lack it; the page
// turns the columns back into entries (web/src/engine/engine.js, rowsOf).
// Two lossless steps more (sharedStrings, leadingCopies) take out what
// gzip's window cannot reach.
function columnsOf(list) {
  const keys = [];
  list.forEach((e) => Object.keys(e).forEach((k) => { if (!keys.includes(k)) keys.push(k); }));
  const columns = {}, missing = {};
  for (const k of keys) {
    columns[k] = list.map((e) => (k in e ? e[k] : 0));
    const gaps = [];
    list.forEach((e, i) => { if (!(k in e)) gaps.push(i); });
    if (gaps.length) missing[k] = gaps;
  }
  const t = { $rows: list.length, keys, columns, missing };
  const leads = leadingCopies(t);
  if (Object.keys(leads).length) t.leads = leads;
  const shared = sharedStrings(t);
  if (Object.keys(shared).length) t.shared = shared;
  return t;
}

// The values of a column that are texts or lists of texts (null and absent
// entries left out), or null where any other value is present.
function textsOf(t, k) {
  const gaps = new Set(t.missing[k] || []), texts = [];
  for (let i = 0; i < t.$rows; i++) {
    const v = t.columns[k][i];
    if (gaps.has(i) || v === null) continue;
    if (typeof v === 'string') texts.push(v);
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) texts.push(...v);
    else return null;
  }
  return texts;
}

// A list column whose first text repeats another column's text in most
// entries (each model's aliases open with its hf_id: 186 of 187) drops that
// copy: leads[list] = {from, except: entries that keep their list whole}.
function leadingCopies(t) {
  const leads = {};
  const present = (k, i) => !(t.missing[k] || []).includes(i);
  for (const a of t.keys) {
    const col = t.columns[a];
    if (!col.some((v) => Array.isArray(v) && v.length) || !textsOf(t, a)) continue;
    for (const b of t.keys) {
      if (b === a) continue;
      const rows = [];
      for (let i = 0; i < t.$rows; i++) {
        if (present(a, i) && present(b, i) && Array.isArray(col[i]) && typeof t.columns[b][i] === 'string' &&
          col[i][0] === t.columns[b][i]) rows.push(i);
      }
      if (rows.length * 2 <= t.$rows) continue;
      const except = [];
      for (let i = 0; i < t.$rows; i++) {
        if (!present(a, i) || !Array.isArray(col[i])) continue;
        if (rows.includes(i)) col[i] = col[i].slice(1);
        else except.push(i);
      }
      leads[a] = { from: b, except };
      break;
    }
  }
  return leads;
}

// A text column in which at most half the characters are new (the GPUs'
// sources: 92 KB of text, 26 KB of it distinct; price notes, licences,
// architectures) keeps each text once in shared[key] and the entries'
// indices into it: gzip sees repeats only 32 KB back.
function sharedStrings(t) {
  const shared = {};
  for (const k of t.keys) {
    const texts = textsOf(t, k);
    if (!texts || !texts.length) continue;
    const distinct = [...new Set(texts)];
    const chars = (list) => list.reduce((n, s) => n + s.length, 0);
    if (chars(distinct) * 2 > chars(texts)) continue;
    const index = new Map(distinct.map((s, i) => [s, i]));
    const gaps = new Set(t.missing[k] || []);
    t.columns[k] = t.columns[k].map((v, i) => (gaps.has(i) || v === null ? v
      : typeof v === 'string' ? index.get(v) : v.map((s) => index.get(s))));
    shared[k] = distinct;
  }
  return shared;
}

function catalogByColumns(dataDir) {
  const byColumns = (file, key) => {
    const doc = JSON.parse(read(path.join(dataDir, file)));
    if (Array.isArray(doc[key])) doc[key] = columnsOf(doc[key]);
    return JSON.stringify(doc);
  };
  return { gpus: byColumns('gpus.json', 'gpus'), models: byColumns('models.json', 'models') };
}

// The catalog by columns, the two texts joined by a line break (minified
// JSON has none of its own), gzip-compressed and written a byte a character
// (b8Encode; the single file, where size matters); the page inflates them
// with DecompressionStream, splits them at the line break and rebuilds the
// entries. Joined rather than one JSON object of the two texts: no escaped
// quotes to compress.
function compressedCatalogScript(dataDir, lzma = false) {
  const t = catalogByColumns(dataDir);
  return `window.CALIPER_CATALOG={${packedFields(Buffer.from(t.gpus + '\n' + t.models, 'utf8'), lzma)}};\n`;
}

// The engine is one SINGLE_FILE script with the wasm inside as a base64 data
// URI. The build takes the wasm out, gzips it (a third of the size) and hands
// it back at start-up as Module.wasmBinary, which also spares the loader its
// fetch() of the data URI (refused by connect-src 'none'): wasmScript for the
// site (engine-wasm.js, a UTF-8 script: 7 bits a character), wasmSingle for
// the single file (a byte a character). An engine without the data URI is
// left as it is.
const WASM_DATA_URI = /data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)/;
function splitEngine(engineText, lzma = false) {
  const match = WASM_DATA_URI.exec(engineText);
  if (!match) return { engine: engineText, wasmScript: '', wasmSingle: '' };
  const wasm = Buffer.from(match[1], 'base64');
  const gz = gzipBest(wasm);
  return {
    engine: engineText.replace(match[0], () => 'data:application/octet-stream;base64,'),
    wasmScript: `window.CALIPER_WASM={b122:"${b122Encode(gz)}",length:${gz.length},bytes:${wasm.length}};\n`,
    wasmSingle: `window.CALIPER_WASM={${lzma ? packedFields(wasm, true) : `b8:"${b8Encode(gz)}",length:${gz.length}`},` +
      `bytes:${wasm.length}};\n`
  };
}

// Emscripten's Embind builds functions with `new Function` unless linked with
// -sDYNAMIC_EXECUTION=0; such an engine needs 'unsafe-eval' to run at all.
function engineNeedsEval(engineText) {
  return /new Function\(/.test(engineText);
}

function csp(scriptSources, styleSources, needsEval) {
  const script = ["'self'", "'wasm-unsafe-eval'"].concat(needsEval ? ["'unsafe-eval'"] : [], scriptSources);
  return [
    "default-src 'none'",
    `script-src ${script.join(' ')}`,
    `style-src ${["'self'"].concat(styleSources).join(' ')}`,
    "img-src 'self' data: blob:",
    "connect-src 'none'",
    "font-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'"
  ].join('; ');
}

function cspMeta(policy) {
  return `<meta http-equiv="Content-Security-Policy" content="${policy}">`;
}

function sha256(text) {
  return `'sha256-${crypto.createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

// The site's scripts, in the order they run: the data and the engine first
// (they set window.CALIPER_CATALOG, CALIPER_WASM and createCaliperEngine,
// which the page's engine door reads), the page last.
function siteScripts(hasWasmScript) {
  return ['catalog.js'].concat(hasWasmScript ? ['engine-wasm.js'] : [], ['caliper-engine.js', BUNDLE]);
}

function buildSite(template, needsEval, hasWasmScript) {
  const tags = siteScripts(hasWasmScript).map((src) => `<script defer src="${src}"></script>`).join('\n');
  return template.replace('<!--CSP-->', cspMeta(csp([], [], needsEval))).replace('<!--SCRIPTS-->', tags);
}

// The engine's glue and the page's bundle as one text, packed like the data
// (148 KB of script became ~45 KB), for the loader (web/src/loader.js) to
// inflate and run; the engine first, as the inline scripts ran. The style
// sheet and the body's markup travel in the same stream, ahead of the code
// (`style` and `body`: their lengths in characters): inline they were 40 KB
// of the single file, packed ~10 KB. The loader puts them in place before it
// runs the code, so nothing is painted unstyled.
function packedCode(engineMin, page, style = '', body = '') {
  const code = engineMin + '\n;' + page;
  const gz = gzipBest(Buffer.from(style + body + code, 'utf8'));
  return { code, script: `window.CALIPER_CODE={b8:"${b8Encode(gz)}",length:${gz.length},` +
    `style:${style.length},body:${body.length}};\n` };
}

// The template's body markup, and the template with an empty body.
const BODY = /(<body[^>]*>)([\s\S]*)(<\/body>)/;
function splitBody(html) {
  const m = BODY.exec(html);
  if (!m) return { html, body: '' };
  return { html: html.replace(BODY, (all, open, body, close) => open + close), body: m[2] };
}

// The loader as one minified classic script, in ASCII (\u escapes: the
// single file is a windows-1252 document).
function bundleLoader(webDir) {
  const result = esbuild.buildSync(Object.assign({}, BUNDLE_OPTIONS, { entryPoints: [path.join(webDir, LOADER)],
    metafile: false, charset: 'ascii' }));
  return result.outputFiles[0].text;
}

function buildSingle(template, parts, needsEval) {
  const css = compactCss(parts.css);
  // Indentation dropped from the markup (it has no <pre>, and its textareas start empty).
  const markup = template.split('\n').map((line) => line.trim()).filter(Boolean).join('\n')
    .replace('data-build="site"', 'data-build="single"')
    .replace(/<meta charset="utf-8">/i, '<meta charset="windows-1252">');
  // Inline scripts run in document order; the loader puts the packed style
  // and body in place and runs the packed engine and page once they are
  // inflated, and the page starts when the document is parsed.
  const split = parts.loader ? splitBody(markup) : { html: markup, body: '' };
  // The markup left in the file in ASCII (the body's travels packed, as UTF-8).
  split.html = split.html.replace(/[^\x00-\x7f]/gu, (c) => `&#${c.codePointAt(0)};`);
  const packed = parts.loader ? packedCode(parts.engineMin, parts.page, css, split.body) : null;
  const code = packed ? [packed.script, parts.loader] : [parts.engineMin, parts.page];
  const bodies = (parts.unlzma ? [parts.unlzma] : []).concat([parts.catalogGzip], parts.wasmSingle ? [parts.wasmSingle] : [],
    parts.textsScript ? [parts.textsScript] : [], code).map(escapeInline);
  const scriptTags = bodies.map((b) => `<script>${b}</script>`).join('\n');
  const policy = csp(bodies.concat(packed ? [packed.code] : []).map(sha256), [sha256(packed ? css : escapeInline(css))], needsEval);
  return split.html
    .replace('<!--CSP-->', cspMeta(policy))
    .replace(/<link rel="stylesheet" href="styles.css">\n?/, () => (packed ? '' : `<style>${escapeInline(css)}</style>\n`))
    .replace('<!--SCRIPTS-->', () => scriptTags);
}

function writeFile(file, text) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

function report(file) {
  const bytes = fs.readFileSync(file);
  const gz = zlib.gzipSync(bytes, { level: 9 }).length;
  const kb = (n) => (n / 1024).toFixed(1) + ' KiB';
  const flag = bytes.length > SIZE_TARGET_BYTES ? `  (over the ${SIZE_TARGET_BYTES / 1024} KiB target)` : '';
  console.log(`${path.relative(process.cwd(), file)}: ${kb(bytes.length)}, gzip ${kb(gz)}${flag}`);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const at = (p) => path.resolve(process.cwd(), p);
  const webDir = at(args.web), outDir = at(args.out), dataDir = at(args.data);
  const unlzma = lzmaDecoder(at(args.engine), args.unlzma && at(args.unlzma));
  const split = splitEngine(read(at(args.engine)), !!unlzma);
  const engine = split.engine;
  const needsEval = engineNeedsEval(engine);
  if (needsEval) {
    console.warn("warning: the engine builds functions with `new Function`; the pages allow 'unsafe-eval'. " +
      'Link the engine with -sDYNAMIC_EXECUTION=0 to drop it.');
  }
  const template = read(path.join(webDir, 'index.html'));
  const page = bundlePage(webDir).code;
  const parts = {
    css: read(path.join(webDir, 'styles.css')),
    unlzma,
    catalogGzip: compressedCatalogScript(dataDir, !!unlzma),
    textsScript: packedTablesScript(webDir),
    engineMin: minifyScript(engine),
    wasmSingle: split.wasmSingle,
    page: (await bundlePageWithoutTexts(webDir)).code,
    loader: bundleLoader(webDir)
  };

  fs.rmSync(outDir, { recursive: true, force: true });
  writeFile(path.join(outDir, 'index.html'), buildSite(template, needsEval, !!split.wasmScript));
  if (split.wasmScript) writeFile(path.join(outDir, 'engine-wasm.js'), split.wasmScript);
  writeFile(path.join(outDir, 'styles.css'), parts.css);
  writeFile(path.join(outDir, 'catalog.js'), catalogScript(dataDir));
  writeFile(path.join(outDir, 'caliper-engine.js'), engine);
  writeFile(path.join(outDir, BUNDLE), page);  // the site's bundle keeps its text tables
  const single = path.join(outDir, 'caliper.html');
  writeFile(single, toWindows1252(buildSingle(template, parts, needsEval)));
  report(path.join(outDir, 'index.html'));
  report(single);
}

if (require.main === module) {
  main().catch((e) => {
    console.error(`build-web: ${e.message}`);
    process.exit(1);
  });
}

module.exports = { lzmaDecoder, packedFields, lzmaBest, columnsOf, escapeInline, catalogScript, compressedCatalogScript, splitEngine, b122Encode, b8Encode,
  toWindows1252, fromWindows1252, WINDOWS_1252_C1, minifyScript, csp, sha256,
  buildSingle, buildSite, siteScripts, splitBody, bundlePage, bundleLoader, packedCode, bundlePageWithoutTexts, packedTablesScript, importGraph, engineNeedsEval, ENTRY, BUNDLE };
