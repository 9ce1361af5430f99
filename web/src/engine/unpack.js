// Packed data (scripts/build-web.js): gzip streams written as text, unpacked
// with the browser's DecompressionStream. The single file writes them a byte
// a character (b8, in a windows-1252 document); the site's engine-wasm.js,
// a UTF-8 script, 7 bits a character (b122).

// Text written 7 bits a character (b122Encode) → the first `length` bytes it
// holds. A character below U+0080 is seven bits; one from U+0100 is one of
// the six values a script string cannot hold as they are (index × 128 above
// U+0100) followed by seven more bits (none from U+0400).
var B122_ILLEGAL = [0, 10, 13, 34, 60, 92];
function b122Decode(text, length) {
  var out = new Uint8Array(length), o = 0, acc = 0, bits = 0, n = text.length;
  // One flat loop with the bits kept below 15 (the page's start waits on
  // it: ~400 000 characters, run once, before the engine can start).
  for (var i = 0; i < n && o < length; i++) {
    var c = text.charCodeAt(i);
    if (c >= 0x100) {
      c -= 0x100;
      if (c >= 6 * 128) c = B122_ILLEGAL[c - 6 * 128];
      else {
        acc = ((acc << 7) | B122_ILLEGAL[c >> 7]) & 0x3fff;
        bits += 7;
        if (bits >= 8) { bits -= 8; out[o++] = acc >> bits; if (o >= length) break; }
        c &= 127;
      }
    }
    acc = ((acc << 7) | c) & 0x3fff;
    bits += 7;
    if (bits >= 8) { bits -= 8; out[o++] = acc >> bits; }
  }
  return out;
}

// Bytes written a character each (b8Encode) → the first `length` bytes. The
// single file is a windows-1252 document, so each byte of it is one
// character: its own number, except 0x80-0x9F, which the browser decodes
// to the characters listed here (WHATWG Encoding Standard,
// index-windows-1252). The seven values a script string cannot hold as they
// are (NUL, LF, CR, quote, <, backslash) and '~' itself come as '~' and a
// digit, the value's place in B8_ESCAPED.
var WINDOWS_1252_C1 = [0x20AC, 0x81, 0x201A, 0x192, 0x201E, 0x2026, 0x2020, 0x2021, 0x2C6, 0x2030, 0x160, 0x2039,
  0x152, 0x8D, 0x17D, 0x8F, 0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x2DC, 0x2122, 0x161,
  0x203A, 0x153, 0x9D, 0x17E, 0x178];
var B8_ESCAPED = [0, 10, 13, 34, 60, 92, 126];
function b8Decode(text, length) {
  var byteOf = new Uint8Array(0x2123), out = new Uint8Array(length), o = 0;
  for (var b = 0; b < 256; b++) byteOf[b] = b;
  for (var k = 0; k < 32; k++) byteOf[WINDOWS_1252_C1[k]] = 0x80 + k;
  for (var i = 0; o < length; i++) {
    var v = byteOf[text.charCodeAt(i)];
    out[o++] = v === 126 ? B8_ESCAPED[text.charCodeAt(++i) - 48] : v;
  }
  return out;
}

// A refusal the caller reports: {code, message}.
function unsupported() {
  var e = new Error('this browser cannot decompress the page data');
  e.code = 'unsupported_browser';
  return e;
}

function inflate(bytes) {
  if (typeof DecompressionStream !== 'function') throw unsupported();
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip')));
}

// {b8, length[, lzma]} → the text it packs.
function unpackText(packed) {
  if (packed.lzma) return unlzma(packed).then(function (bytes) { return new TextDecoder().decode(bytes); });
  return Promise.resolve().then(function () { return inflate(b8Decode(packed.b8, packed.length)).text(); });
}

function gunzipBytes(bytes) {
  return Promise.resolve().then(function () { return inflate(bytes).arrayBuffer(); })
    .then(function (buffer) { return new Uint8Array(buffer); });
}

// LZMA streams ({b8, length, lzma: the unpacked length}; the single file's
// engine module and catalog) are unpacked by the page's own decoder module
// (wasm/unlzma.cpp), which the file carries gzip-compressed
// (window.CALIPER_UNLZMA). Compiled once (the loader and the page each
// bundle this file: the compiled module is kept on the packed object);
// each stream gets an instance of its own, whose memory holds the decoder's
// state and probabilities, the stream and what it unpacks to, all above
// the module's own memory; the returned bytes are a view of that memory.
// Decoded in steps of LZMA_STEP bytes: the browser runs a function's first
// calls unoptimised and swaps in the optimised code between calls (the
// engine's module in one call took ~36 ms in Chromium, ~17-24 ms once
// optimised).
var LZMA_STEP = 32768;
function unlzma(packed) {
  var d = globalThis.CALIPER_UNLZMA;
  if (!d) return Promise.reject(new Error('this page has no LZMA decoder'));
  if (!d.module) d.module = gunzipBytes(b8Decode(d.b8, d.length)).then(function (bytes) { return WebAssembly.compile(bytes); });
  var stream = b8Decode(packed.b8, packed.length), size = packed.lzma;
  return d.module.then(function (module) { return WebAssembly.instantiate(module, {}); }).then(function (instance) {
    var e = instance.exports, memory = e.memory, state = memory.buffer.byteLength;
    var probs = state + 64, at = probs + 2 * e.lzma_probs(stream[0]), out = at + stream.length + 8;
    var have = memory.buffer.byteLength;
    if (out + size > have) memory.grow(Math.ceil((out + size - have) / 65536));
    new Uint8Array(memory.buffer, at, stream.length).set(stream);
    var pos = e.lzma_start(state, at, stream.length, probs);
    while (pos >= 0 && pos < size) {
      var stop = Math.min(size, pos + LZMA_STEP), n = e.lzma_step(state, out, size, stop);
      pos = n < stop ? -1 : n;  // refused, or the stream ended short
    }
    if (pos !== size) throw new Error('the page data are damaged');
    return new Uint8Array(memory.buffer, out, size);
  });
}

// {b8, length[, lzma]} → the bytes it packs.
function unpackBytes(packed) {
  return packed.lzma ? unlzma(packed) : gunzipBytes(b8Decode(packed.b8, packed.length));
}

export { b122Decode, b8Decode, WINDOWS_1252_C1, unpackText, unpackBytes, gunzipBytes, inflate };
