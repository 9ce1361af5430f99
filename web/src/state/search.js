// Case- and punctuation-insensitive text match, as the engine matches aliases.
function normalizeName(s) { return String(s).toLowerCase().replace(/[^a-z0-9\u4e00-\u9fff]+/g, ''); }
function matchesText(haystacks, needle) {
  var n = normalizeName(needle);
  if (!n) return true;
  return haystacks.some(function (h) { return h && normalizeName(h).indexOf(n) >= 0; });
}

// The GPUs a list of names picks ("A800, H20, 4090D, 910B": commas, 、 or
// ; between them). A name that equals an id, name or alias picks that GPU
// alone ("H20" is not the H200); otherwise every GPU whose names contain
// it. gpus: catalog entries {id, name, aliases}. Returns {ids, unmatched}.
function pickGpus(gpus, text) {
  var ids = [], unmatched = [];
  String(text || '').split(/[,\uff0c\u3001;\uff1b]+/).map(function (t) { return t.trim(); }).filter(Boolean).forEach(function (term) {
    var n = normalizeName(term);
    if (!n) return;
    var names = function (g) { return [g.id, g.name].concat(g.aliases || []); };
    var exact = gpus.filter(function (g) { return names(g).some(function (x) { return x && normalizeName(x) === n; }); });
    var found = exact.length ? exact : gpus.filter(function (g) { return matchesText(names(g), term); });
    if (!found.length) unmatched.push(term);
    found.forEach(function (g) { if (ids.indexOf(g.id) < 0) ids.push(g.id); });
  });
  return { ids: ids, unmatched: unmatched };
}

export { normalizeName, matchesText, pickGpus };
