// The single file's loader. The style sheet, the body's markup, the
// engine's glue and the page's bundle travel packed like the data
// (window.CALIPER_CODE: gzip written a byte a character, style and body the
// lengths of the first two texts; scripts/build-web.js). They are inflated
// here: the style and the markup put in place, then the code run as one
// inline script; the page's policy allows the style and the script by their
// hashes. Without DecompressionStream nothing of the page can run: say so in
// both languages.
import { unpackBytes, unpackText } from './engine/unpack.js';

var NEEDS = 'This page needs a browser with DecompressionStream (Chrome 80, Firefox 113, Safari 16.4 or later). ' +
  '此页面需要支持 DecompressionStream 的浏览器（Chrome 80、Firefox 113、Safari 16.4 或更新版本）。';

// The file is a windows-1252 document, its data a byte a character
// (scripts/build-web.js). Read in another charset (a server that declares
// UTF-8 overrides the file's own <meta charset>) the data are lost: say so.
var CHARSET = 'This file must be read as windows-1252; it was read as ' + document.characterSet +
  '. Open it from disk, or serve it with "charset=windows-1252". ' +
  '此文件须以 windows-1252 编码读取：请从本地打开，或以 "charset=windows-1252" 提供。';
var wrongCharset = document.characterSet.toLowerCase() !== 'windows-1252';

var packed = wrongCharset ? Promise.reject(new Error(CHARSET)) : unpackText(window.CALIPER_CODE);

// The engine's module, where the file carries it as LZMA: unpacked (~16 ms
// of CPU) and handed to the browser to compile in the background now, while
// the page's code inflates and runs, rather than once that code asks for it
// (web/src/engine/engine.js, compileWasm, takes the promise).
var wasm = window.CALIPER_WASM;
if (!wrongCharset && wasm && wasm.lzma && typeof WebAssembly === 'object') {
  wasm.compiled = unpackBytes(wasm).then(function (bytes) { return WebAssembly.compile(bytes); });
  wasm.compiled.catch(function () { /* reported by the engine's start */ });
}

// The first number format a page makes loads the browser's locale data
// (15-50 ms in Chromium, once per page); made while the code inflates and
// the engine compiles, the matrix's first paint does not wait on it.
if (typeof Intl === 'object') {
  setTimeout(function () { new Intl.NumberFormat('en').format(0); }, 0);
}

// The body's markup goes in once the parser has made the (empty) body.
function whenParsed(run) {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', run);
  else run();
}

packed.then(function (text) {
  var sizes = window.CALIPER_CODE, styleEnd = sizes.style || 0, bodyEnd = styleEnd + (sizes.body || 0);
  whenParsed(function () {
    if (styleEnd) {
      var style = document.createElement('style');
      style.textContent = text.slice(0, styleEnd);
      document.head.appendChild(style);
    }
    if (bodyEnd > styleEnd) document.body.insertAdjacentHTML('afterbegin', text.slice(styleEnd, bodyEnd));
    var script = document.createElement('script');
    script.textContent = text.slice(bodyEnd);
    document.head.appendChild(script);
  });
}, function () {
  whenParsed(function () {
    var note = document.createElement('p');
    note.setAttribute('role', 'alert');
    note.textContent = wrongCharset ? CHARSET : NEEDS;
    document.body.appendChild(note);
  });
});
