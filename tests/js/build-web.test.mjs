// The page build (scripts/build-web.js): inlining, CSP and the single file.
import test from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'crypto';
import fs from 'fs';
import os from 'os';
import path from 'path';
import zlib from 'zlib';
import { execFileSync } from 'child_process';
import { fileURLToPath } from 'url';
import build from '../../scripts/build-web.js';
import { splitCatalog, b122Decode, b8Decode } from '../../web/src/engine/engine.js';
import { WINDOWS_1252_C1 } from '../../web/src/engine/unpack.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('inlined text cannot close its script element', () => {
  const out = build.escapeInline('var s = "</script><script>alert(1)</script>"; // <!-- x');
  assert.ok(!/<\/script/i.test(out));
  assert.ok(!out.includes('<!--'));
  // The escaped text still means the same string to JavaScript.
  assert.equal(eval(build.escapeInline('"</SCRIPT>"')), '</SCRIPT>');
});

test('the policy allows no remote origin and no inline code without a hash', () => {
  const policy = build.csp(["'sha256-abc'"], ["'sha256-def'"], false);
  assert.match(policy, /default-src 'none'/);
  assert.match(policy, /connect-src 'none'/);
  assert.match(policy, /script-src 'self' 'wasm-unsafe-eval' 'sha256-abc'/);
  assert.ok(!policy.includes('unsafe-inline'));
  assert.ok(!policy.includes("'unsafe-eval'"));
  assert.ok(!/https?:/.test(policy));
  assert.match(build.csp([], [], true), /'unsafe-eval'/);
});

test('7-bit text decodes back to the same bytes, any length, and holds no character a script string cannot', () => {
  // Every byte value, and lengths around the 7- and 8-bit boundaries (56 bits = 7 bytes = 8 characters).
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  for (const bytes of [all, Buffer.from([0, 0, 0]), Buffer.from([0x45, 0x28])].concat(
    [0, 1, 2, 6, 7, 8, 13, 14, 15, 4099].map((n) => crypto.randomBytes(n)))) {
    const text = build.b122Encode(bytes);
    assert.ok(!/[\0\n\r"<\\]/.test(text), 'no NUL, LF, CR, quote, < or backslash');
    assert.ok([...text].every((c) => c.charCodeAt(0) < 0x80 || (c.charCodeAt(0) >= 0x100 && c.charCodeAt(0) < 0x406)));
    assert.deepEqual(Buffer.from(b122Decode(text, bytes.length)), bytes);
  }
  // Random bytes take 8/7 characters a byte, and at most 8/7 bytes of UTF-8 a byte (plus the padding).
  const bytes = crypto.randomBytes(70000);
  const utf8 = Buffer.byteLength(build.b122Encode(bytes), 'utf8');
  assert.ok(utf8 <= Math.ceil(70000 * 8 / 7) + 2, `${utf8} bytes of UTF-8 for 70000 bytes`);
});

test('text a byte a character decodes back to the same bytes, holds no character a script string cannot, and is windows-1252', () => {
  assert.deepEqual(build.WINDOWS_1252_C1, WINDOWS_1252_C1, 'the build and the page read the bytes 0x80-0x9F alike');
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  for (const bytes of [all, Buffer.from([126, 126, 0]), Buffer.from([0x80, 0x9f, 0xff])].concat(
    [0, 1, 2, 7, 4099].map((n) => crypto.randomBytes(n)))) {
    const text = build.b8Encode(bytes);
    assert.ok(!/[\0\n\r"<\\]/.test(text), 'no NUL, LF, CR, quote, < or backslash');
    // Every character is one byte of the windows-1252 file, read back as the same character.
    const file = build.toWindows1252(text);
    assert.equal(build.fromWindows1252(file), text);
    assert.deepEqual(Buffer.from(b8Decode(text, bytes.length)), bytes);
  }
  // Random bytes (gzip's output looks random): 7 values of 256 take two bytes of the file.
  const n = build.toWindows1252(build.b8Encode(crypto.randomBytes(70000))).length;
  assert.ok(n <= 70000 * (1 + 7 / 256) * 1.02, `${n} bytes of file for 70000 bytes`);
  // Characters of the site's UTF-8 that windows-1252 lacks are refused, not written wrong.
  assert.throws(() => build.toWindows1252('中'), /no windows-1252 byte/);
});

test('catalog entries by column come back as the same entries, keys missing and null kept apart', () => {
  const entries = [{ id: 'a', price: null, moe: { experts: 8 }, aliases: ['x'] }, { id: 'b', notes: 'n', price: 3 }, { id: 'c' }];
  const doc = { schema_version: 2, gpus: build.columnsOf(entries) };
  assert.deepEqual(doc.gpus.missing, { price: [2], moe: [1, 2], aliases: [1, 2], notes: [0, 2] });
  const text = JSON.stringify(doc) + '\n' + JSON.stringify({ models: build.columnsOf([]) });
  const back = splitCatalog(text);
  assert.deepEqual(JSON.parse(back.gpus), { schema_version: 2, gpus: entries });
  assert.deepEqual(JSON.parse(back.models), { models: [] });
  // Texts that are not by column pass through as they are.
  assert.deepEqual(splitCatalog('{"gpus":[]}\n{"models":[1]}'), { gpus: '{"gpus":[]}', models: '{"models":[1]}' });
});

test('repeated texts are kept once and a list repeating another key at its head drops the copy, both restored', () => {
  const long = 'datasheet https://example.com/a-long-source-text-repeated-by-many-entries';
  const entries = [
    { id: 'a', hf_id: 'org/A', aliases: ['org/A', 'a1'], sources: [long, 'own a'], note: null },
    { id: 'b', hf_id: 'org/B', aliases: ['org/B'], sources: [long] },
    { id: 'c', hf_id: 'org/C', aliases: ['c1', 'org/C'], sources: [long, long], note: 'x' },
    { id: 'd', aliases: ['d1'], sources: [] },
    { id: 'e', hf_id: 'org/E', aliases: ['org/E'], sources: ['own e'] }];
  const t = build.columnsOf(JSON.parse(JSON.stringify(entries)));
  assert.deepEqual(t.shared.sources, [long, 'own a', 'own e']);
  assert.deepEqual(t.columns.sources, [[0, 1], [0], [0, 0], [], [2]]);
  // c keeps its list whole (its hf_id is not first); d has no hf_id.
  assert.deepEqual(t.leads, { aliases: { from: 'hf_id', except: [2, 3] } });
  assert.deepEqual(t.columns.aliases, [['a1'], [], ['c1', 'org/C'], ['d1'], []]);
  const back = splitCatalog(JSON.stringify({ gpus: t }) + '\n' + JSON.stringify({ models: [] }));
  assert.deepEqual(JSON.parse(back.gpus), { gpus: entries });
});

test('the minified engine script keeps its code and drops comments and whitespace', () => {
  const src = '// header\nvar createX = function () {\n  // note\n  return "// not a comment";\n};\n\n';
  const out = build.minifyScript(src);
  assert.ok(!out.includes('header') && !out.includes('note') && out.length < src.length);
  assert.equal(new Function(out + 'return createX();')(), '// not a comment');
});

test('the compressed catalog inflates back to the two JSON texts', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'caliper-cat-'));
  // A line break inside a value stays escaped, so the one between the texts is the only one.
  fs.writeFileSync(path.join(tmp, 'gpus.json'), '{ "gpus": [ {"id": "a", "name": "</script>", "note": "two\\nlines"} ] }');
  fs.writeFileSync(path.join(tmp, 'models.json'), '{ "models": [] }');
  const script = build.compressedCatalogScript(tmp);
  const m = script.match(/b8:"([^"]+)",length:(\d+)/);
  const texts = splitCatalog(zlib.gunzipSync(Buffer.from(b8Decode(m[1], Number(m[2])))).toString('utf8'));
  assert.equal(texts.gpus, '{"gpus":[{"id":"a","name":"</script>","note":"two\\nlines"}]}');
  assert.equal(texts.models, '{"models":[]}');
  const plain = build.catalogScript(tmp);
  const window = {};
  new Function('window', plain)(window);
  assert.equal(window.CALIPER_CATALOG.gpus, texts.gpus);
  fs.rmSync(tmp, { recursive: true, force: true });
});

test('the wasm inside the engine is moved out, gzip-compressed, intact', () => {
  const wasm = Buffer.from([0, 97, 115, 109, 1, 0, 0, 0, 1, 2, 3, 4]);
  const engine = `var wasmBinaryFile = 'data:application/octet-stream;base64,${wasm.toString('base64')}'; // rest`;
  const split = build.splitEngine(engine);
  assert.equal(split.engine, "var wasmBinaryFile = 'data:application/octet-stream;base64,'; // rest");
  const m = split.wasmScript.match(/b122:"([^"]+)",length:(\d+)/);
  assert.deepEqual(zlib.gunzipSync(Buffer.from(b122Decode(m[1], Number(m[2])))), wasm);
  assert.match(split.wasmScript, /bytes:12\b/);
  // The single file's copy: the same stream, a byte a character.
  const s = split.wasmSingle.match(/b8:"([^"]+)",length:(\d+)/);
  assert.deepEqual(zlib.gunzipSync(Buffer.from(b8Decode(s[1], Number(s[2])))), wasm);
  assert.deepEqual(build.splitEngine('no wasm here'), { engine: 'no wasm here', wasmScript: '', wasmSingle: '' });
});

test('an engine built with new Function is detected', () => {
  assert.ok(build.engineNeedsEval('x = new Function("body", "return 1")'));
  assert.ok(!build.engineNeedsEval('function f() {}'));
});

// Builds into a temporary folder with a minimal engine stand-in and the
// project's catalogs (or small fixtures when the catalogs are absent).
test('the single file inlines everything and hashes each inline block', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'caliper-web-'));
  const engine = path.join(tmp, 'engine.js');
  fs.writeFileSync(engine, 'var createCaliperEngine = function () { return Promise.resolve({}); }; // "</script>"\n');
  let data = path.join(ROOT, 'data');
  if (!fs.existsSync(path.join(data, 'gpus.json'))) {
    data = path.join(tmp, 'data');
    fs.mkdirSync(data);
    fs.writeFileSync(path.join(data, 'gpus.json'), '{"gpus": [{"id": "x", "name": "</script>"}]}');
    fs.writeFileSync(path.join(data, 'models.json'), '{"models": []}');
  }
  const out = path.join(tmp, 'dist');
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-web.js'), '--engine', engine, '--out', out,
    '--data', data, '--web', path.join(ROOT, 'web')], { stdio: 'pipe' });
  // A windows-1252 document, read as the browser reads it; ASCII outside the packed data.
  const html = build.fromWindows1252(fs.readFileSync(path.join(out, 'caliper.html')));
  assert.match(html, /^<!doctype html>\n<html[^>]*>\n<head>\n<meta charset="windows-1252">/);
  assert.ok(!/[^\x00-\x7f]/.test(html.replace(/<script>window\.CALIPER_[A-Z0-9]+=\{b8:"[^"]*"/g, '')),
    'only the packed data leaves ASCII');
  assert.ok(!/<script[^>]*\bsrc=/i.test(html), 'no external scripts');
  assert.ok(!/<link[^>]*stylesheet/i.test(html), 'no external styles');
  assert.ok(!/type="module"/.test(html));
  assert.ok(!/https?:\/\//.test(html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)"/)[1]));
  const policy = html.match(/content="(default-src[^"]+)"/)[1];
  const blocks = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  assert.equal(blocks.length, 4, 'catalog, text tables, the packed engine and page, and their loader');
  for (const b of blocks) {
    const hash = crypto.createHash('sha256').update(b, 'utf8').digest('base64');
    assert.ok(policy.includes(`'sha256-${hash}'`), 'each inline script is allowed by its hash');
  }
  // The style sheet, the body's markup, the engine and the page travel
  // packed; the loader puts the style and markup in place and runs the code
  // as one script, allowed by the hash of exactly the text it inflates.
  const packed = blocks.find((b) => b.startsWith('window.CALIPER_CODE='));
  assert.ok(packed, 'the engine and the page are packed');
  const m = packed.match(/b8:"([^"]*)",length:(\d+),style:(\d+),body:(\d+)/);
  const text = zlib.gunzipSync(Buffer.from(b8Decode(m[1], Number(m[2])))).toString('utf8');
  const styleEnd = Number(m[3]), bodyEnd = styleEnd + Number(m[4]);
  const style = text.slice(0, styleEnd), body = text.slice(styleEnd, bodyEnd), code = text.slice(bodyEnd);
  // The style sheet minified, whole (its last rule closed); the body's markup whole, the page's empty.
  assert.ok(style.length > 1000 && style.endsWith('}') && !style.includes('\n\n'), 'the style sheet leads');
  assert.ok(body.includes('id="main"') && /<\/[a-z]+>\s*$/.test(body), 'the body markup follows');
  assert.match(html, /<body><\/body>/);
  assert.ok(!/<style>/.test(html), 'no inline style element');
  assert.ok(policy.includes(crypto.createHash('sha256').update(style, 'utf8').digest('base64')), 'the style is allowed by its hash');
  assert.ok(code.startsWith('var createCaliperEngine'), 'the engine first, as the inline scripts ran');
  assert.ok(code.length > 1000, 'the page bundle follows');
  const codeHash = crypto.createHash('sha256').update(code, 'utf8').digest('base64');
  assert.ok(policy.includes(`'sha256-${codeHash}'`), 'the inflated script is allowed by its hash');
  assert.ok(!/createCaliperEngine/.test(html.replace(packed, '')), 'no engine text outside the packed block');
  assert.match(html, /data-build="single"/);
  const site = fs.readFileSync(path.join(out, 'index.html'), 'utf8');
  for (const s of build.siteScripts(false)) assert.ok(site.includes(`src="${s}"`) && fs.existsSync(path.join(out, s)), s);
  assert.ok(fs.existsSync(path.join(out, 'catalog.js')) && fs.existsSync(path.join(out, 'caliper-engine.js')));
  fs.rmSync(tmp, { recursive: true, force: true });
});

// The modules' imports are the page's dependency graph: every module is
// reached from main.js, and none imports itself through others (a cycle).
test('every module in web/src is reached from main.js (or is the single file\'s loader), with no import cycle', () => {
  const graph = build.importGraph(build.bundlePage(path.join(ROOT, 'web')).metafile);
  const rel = (f) => path.relative(path.join(ROOT, 'web/src'), path.resolve(f));
  const files = fs.readdirSync(path.join(ROOT, 'web/src'), { recursive: true }).filter((f) => f.endsWith('.js'))
    .filter((f) => f !== 'loader.js').sort();
  assert.deepEqual(Object.keys(graph).map(rel).sort(), files);
  const state = {};
  const visit = (file, trail) => {
    assert.notEqual(state[file], 'open', `import cycle: ${trail.concat(file).map(rel).join(' → ')}`);
    if (state[file] === 'done') return;
    state[file] = 'open';
    for (const dep of graph[file]) visit(dep, trail.concat(file));
    state[file] = 'done';
  };
  Object.keys(graph).forEach((f) => visit(f, []));
});

test('no module shares state through a global namespace object', () => {
  const files = fs.readdirSync(path.join(ROOT, 'web/src'), { recursive: true }).filter((f) => f.endsWith('.js'));
  for (const f of files) {
    const text = fs.readFileSync(path.join(ROOT, 'web/src', f), 'utf8');
    assert.ok(!/\b(window|globalThis|root)\.Caliper\b/.test(text), `${f} uses window.Caliper`);
    assert.ok(!/\brequire\(/.test(text), `${f} uses require`);
  }
});
