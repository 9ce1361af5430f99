// The single file's LZMA decoder (wasm/unlzma.cpp, built into build-wasm/)
// and the page's path through it (web/src/engine/unpack.js): what xz packs
// comes back byte for byte; a damaged stream is refused, never a crash.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { pathToFileURL } = require('url');

const root = path.resolve(__dirname, '../..');
const decoderFile = path.join(root, 'build-wasm/wasm/caliper-unlzma.wasm');
const build = require(path.join(root, 'scripts/build-web.js'));

// The build's own packing (scripts/build-web.js LZMA_OPTIONS) and the
// default preset's properties (lc=3 lp=0 pb=2), which the decoder reads too.
function xz(bytes, options = '--lzma1=preset=9e,lc=3,lp=0,pb=0') {
  const run = spawnSync('xz', ['--format=lzma', options, '-c'], { input: bytes, maxBuffer: 64 << 20 });
  assert.strictEqual(run.status, 0, String(run.stderr));
  return run.stdout;
}

async function decoder() {
  const { instance } = await WebAssembly.instantiate(fs.readFileSync(decoderFile), {});
  return instance.exports;
}

// Lays the state, the probabilities, the stream and the output above the
// module's own memory and decodes in steps of `step` bytes, as unpack.js
// does; returns the bytes decoded (-1: refused; fewer than asked: the
// stream ended) and what was written.
function decode(e, stream, size, step = 32768) {
  const state = e.memory.buffer.byteLength;
  assert.ok(e.lzma_state_size() <= 64);
  const probs = state + 64, at = probs + 2 * e.lzma_probs(stream[0]), out = at + stream.length + 8;
  const have = e.memory.buffer.byteLength;
  if (out + size > have) e.memory.grow(Math.ceil((out + size - have) / 65536));
  new Uint8Array(e.memory.buffer, at, stream.length).set(stream);
  let n = e.lzma_start(state, at, stream.length, probs);
  while (n >= 0 && n < size) {
    const stop = Math.min(size, n + step), got = e.lzma_step(state, out, size, stop);
    if (got < stop) { n = got; break; }
    n = got;
  }
  return { n, bytes: Buffer.from(new Uint8Array(e.memory.buffer, out, Math.max(n, 0))) };
}

// Bytes with long and short repeats, literals after matches and distances
// past 4 KiB (every branch of the format: literals, matched literals, the
// four repeat distances, short repeats, lengths from each length coder).
function sample(n) {
  const out = Buffer.alloc(n);
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 8;
  for (let i = 0; i < n; i++) {
    const r = rand() % 100;
    if (i > 5000 && r < 30) out[i] = out[i - 1 - (rand() % 5000)];
    else if (i > 0 && r < 60) out[i] = out[i - 1];
    else out[i] = rand() & 0xff;
  }
  return out;
}

const hasDecoder = fs.existsSync(decoderFile);

test('the decoder gives back what xz packed: text, binary, one byte, the catalog', { skip: !hasDecoder && 'no build-wasm' },
  async () => {
    const e = await decoder();
    const inputs = [Buffer.from('a'), Buffer.from('caliper '.repeat(1000)), sample(300000),
      fs.readFileSync(path.join(root, 'data/models.json'))];
    for (const input of inputs) {
      for (const options of ['--lzma1=preset=9e,lc=3,lp=0,pb=0', '--lzma1=preset=6,lc=3,lp=0,pb=2']) {
        // In one step, and in steps that end inside matches (a match runs past its step's end).
        for (const step of [input.length, 1000, 7]) {
          if (step === 7 && input.length > 10000) continue;
          const { n, bytes } = decode(e, xz(input, options), input.length, step);
          assert.strictEqual(n, input.length, `${options}, steps of ${step}`);
          assert.ok(bytes.equals(input), `${input.length} bytes, ${options}, steps of ${step}`);
        }
      }
    }
  });

test('a damaged or truncated stream is refused or stays within its output, never a trap',
  { skip: !hasDecoder && 'no build-wasm' }, async () => {
    const input = sample(50000), stream = xz(input);
    const e = await decoder();
    // A header this decoder does not read: properties past lc 8 / lp 4 / pb 4, or a first range byte not 0.
    const badProps = Buffer.from(stream); badProps[0] = 225;
    assert.strictEqual(decode(e, badProps, input.length).n, -1);
    const badFirst = Buffer.from(stream); badFirst[13] = 1;
    assert.strictEqual(decode(e, badFirst, input.length).n, -1);
    // Flipped bits in the data: refused, or other bytes up to the asked length (the page then
    // refuses a count short of it), never a trap.
    for (const at of [20, 100, 1000, stream.length - 10]) {
      const bad = Buffer.from(stream); bad[at] ^= 0x5a;
      const { n } = decode(await decoder(), bad, input.length);
      assert.ok(n >= -1 && n <= input.length, `flip at ${at}: ${n}`);
    }
    // Cut short: refused (the decoder reads past the end of what it was given).
    assert.strictEqual(decode(await decoder(), stream.subarray(0, stream.length >> 1), input.length).n, -1);
    // Asked for more than the stream holds: it stops at its end marker, short of the asked length.
    const { n } = decode(await decoder(), stream, input.length + 100);
    assert.strictEqual(n, input.length);
  });

test('the page unpacks the single file\'s LZMA streams through its decoder', { skip: !hasDecoder && 'no build-wasm' },
  async () => {
    const unpack = await import(pathToFileURL(path.join(root, 'web/src/engine/unpack.js')).href);
    const window = {};
    new Function('window', build.lzmaDecoder(path.join(root, 'build-wasm/wasm/caliper-engine.js')))(window);
    globalThis.CALIPER_UNLZMA = window.CALIPER_UNLZMA;
    try {
      const input = sample(200000);
      const packed = {};
      new Function('p', `Object.assign(p, {${build.packedFields(input, true)}})`)(packed);
      assert.strictEqual(packed.lzma, input.length);
      // The stream written a byte a character: what the page reads back is xz's stream.
      assert.ok(Buffer.from(unpack.b8Decode(packed.b8, packed.length)).equals(xz(input)));
      assert.ok(Buffer.from(await unpack.unpackBytes(packed)).equals(input));
      const text = 'GPU 显存 '.repeat(500);
      const packedText = {};
      new Function('p', `Object.assign(p, {${build.packedFields(Buffer.from(text, 'utf8'), true)}})`)(packedText);
      assert.strictEqual(await unpack.unpackText(packedText), text);
      // Without the decoder's stream flag the same call reads gzip.
      const gz = {};
      new Function('p', `Object.assign(p, {${build.packedFields(input, false)}})`)(gz);
      assert.strictEqual(gz.lzma, undefined);
      assert.ok(Buffer.from(await unpack.unpackBytes(gz)).equals(input));
    } finally {
      delete globalThis.CALIPER_UNLZMA;
    }
  });
