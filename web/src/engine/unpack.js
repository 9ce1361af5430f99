// The single file's packed data (scripts/build-web.js): gzip streams written
// 7 bits a character, unpacked with the browser's DecompressionStream.

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

// {b122, length} → the text it packs.
function unpackText(packed) {
  return Promise.resolve().then(function () { return inflate(b122Decode(packed.b122, packed.length)).text(); });
}

function gunzipBytes(bytes) {
  return Promise.resolve().then(function () { return inflate(bytes).arrayBuffer(); })
    .then(function (buffer) { return new Uint8Array(buffer); });
}

export { b122Decode, unpackText, gunzipBytes, inflate };
