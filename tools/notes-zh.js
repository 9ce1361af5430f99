#!/usr/bin/env node
// Writes each catalog entry's notes_zh (data/gpus.json, data/models.json)
// from a map of English sentences to Chinese ones, keeping the files'
// layout: the line after "notes" gets "notes_zh". An entry is written only
// where every sentence of its notes is in the map; one that has notes_zh
// keeps it unless --replace. Prints the entries still without a translation.
//   node tools/notes-zh.js MAP.json [--replace]
'use strict';
const fs = require('fs');
const path = require('path');

const [mapFile, flag] = process.argv.slice(2);
if (!mapFile) { console.error('usage: node tools/notes-zh.js MAP.json [--replace]'); process.exit(2); }
const map = JSON.parse(fs.readFileSync(mapFile, 'utf8'));
const root = path.resolve(__dirname, '..');
// The split the translations are keyed on: after a full stop and a space.
const sentences = (text) => text.split(/(?<=\.)\s+/);

let missing = 0, written = 0;
for (const file of ['gpus.json', 'models.json']) {
  const full = path.join(root, 'data', file);
  const lines = fs.readFileSync(full, 'utf8').split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)"notes": ("(?:[^"\\]|\\.)*")(,?)$/.exec(lines[i]);
    if (!m) { out.push(lines[i]); continue; }
    const [, indent, quoted, comma] = m;
    const old = /^\s*"notes_zh": /.test(lines[i + 1] || '') ? lines[i + 1] : null;
    const parts = sentences(JSON.parse(quoted));
    const zh = parts.every((s) => !s || map[s]) ? parts.map((s) => (s ? map[s] : '')).join('') : null;
    if (old && (!zh || flag !== '--replace')) { out.push(lines[i], old); i++; continue; }
    if (old) i++;
    if (!zh) { if (JSON.parse(quoted)) missing++; out.push(lines[i - (old ? 1 : 0)]); continue; }
    const last = old ? /,$/.test(old) ? ',' : '' : comma;
    out.push(`${indent}"notes": ${quoted},`, `${indent}"notes_zh": ${JSON.stringify(zh)}${last}`);
    written++;
  }
  fs.writeFileSync(full, out.join('\n'));
}
console.log(`notes_zh written: ${written}; entries still without one: ${missing}`);
