// Case- and punctuation-insensitive text match, as the engine matches aliases.
function normalizeName(s) { return String(s).toLowerCase().replace(/[^a-z0-9\u4e00-\u9fff]+/g, ''); }
function matchesText(haystacks, needle) {
  var n = normalizeName(needle);
  if (!n) return true;
  return haystacks.some(function (h) { return h && normalizeName(h).indexOf(n) >= 0; });
}

export { normalizeName, matchesText };
