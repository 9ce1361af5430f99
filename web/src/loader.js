// The single file's loader. The engine's glue and the page's bundle travel
// packed like the data (window.CALIPER_CODE: gzip written 7 bits a
// character, scripts/build-web.js); they are inflated here and run as one
// inline script, which the page's policy allows by its hash. Without
// DecompressionStream nothing of the page can run: say so in both languages.
import { unpackText } from './engine/unpack.js';

var NEEDS = 'This page needs a browser with DecompressionStream (Chrome 80, Firefox 113, Safari 16.4 or later). ' +
  '此页面需要支持 DecompressionStream 的浏览器（Chrome 80、Firefox 113、Safari 16.4 或更新版本）。';

var packed = unpackText(window.CALIPER_CODE);

// The first number format a page makes loads the browser's locale data
// (15-50 ms in Chromium, once per page); made while the code inflates and
// the engine compiles, the matrix's first paint does not wait on it.
if (typeof Intl === 'object') {
  setTimeout(function () { new Intl.NumberFormat('en').format(0); }, 0);
}

packed.then(function (code) {
  var script = document.createElement('script');
  script.textContent = code;
  document.head.appendChild(script);
}, function () {
  var note = document.createElement('p');
  note.setAttribute('role', 'alert');
  note.textContent = NEEDS;
  (document.body || document.documentElement).appendChild(note);
});
