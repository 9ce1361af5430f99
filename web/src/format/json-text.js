// JSON as Python writes it. transformers saves config.json with Python's
// json module, which writes NaN, Infinity and -Infinity as bare words
// (NVIDIA Nemotron 3's "time_step_limit": [0.0, Infinity]); JSON.parse
// rejects them. They become null: no field the engine reads holds one.

// `text` with every NaN / Infinity / -Infinity outside strings replaced by
// null; the text itself when it has none.
export function withoutPythonNumbers(text) {
  var s = String(text);
  if (!/NaN|Infinity/.test(s)) return s;
  var out = '', inString = false, i = 0;
  while (i < s.length) {
    var c = s[i];
    if (inString) {
      out += c;
      if (c === '\\') { out += s[i + 1] || ''; i += 2; continue; }
      if (c === '"') inString = false;
      i++;
      continue;
    }
    if (c === '"') { inString = true; out += c; i++; continue; }
    var word = /^(-?Infinity|NaN)(?![A-Za-z0-9_])/.exec(s.slice(i, i + 10));
    if (word) { out += 'null'; i += word[1].length; continue; }
    out += c;
    i++;
  }
  return out;
}

// JSON.parse that also reads Python's NaN and Infinity (as null); a text
// that is not JSON either way throws JSON.parse's own error.
export function parseJsonLenient(text) {
  try { return JSON.parse(text); } catch (e) {
    var relaxed = withoutPythonNumbers(text);
    if (relaxed === String(text)) throw e;
    try { return JSON.parse(relaxed); } catch (e2) { throw e; }
  }
}
