// Each catalog note in Chinese (notes_zh beside notes, data/*.json): a
// Chinese reader sees the entry's notes in Chinese (views/detail.js), so
// an English note edited or added without its translation fails here.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { fileURLToPath } from 'url';
import { untranslated } from '../../web/src/i18n/i18n.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Product, library, command and unit names written in small letters: the
// Mac mini, FLUX.1 [dev], verl, diffusers, safetensors, sudo sysctl, a
// config's 'qwen' model type, 'half' (a shader type), px (pixels), nm
// (nanometres, a chip process).
const LOWERCASE_NAMES = ['null', 'true', 'false', 'mini', 'dev', 'verl', 'diffusers', 'safetensors', 'sudo', 'sysctl', 'awesomeagents',
  'largefalcon', 'granitemoehybrid', 'qwen', 'qkv', 'proj', 'yes', 'no', 'plain', 'half', 'px', 'nm'];
const entries = (file, key) => JSON.parse(fs.readFileSync(path.join(root, 'data', file), 'utf8'))[key];

for (const [file, key] of [['gpus.json', 'gpus'], ['models.json', 'models']]) {
  test(`data/${file}: every note has its Chinese text`, () => {
    const missing = entries(file, key).filter((e) => e.notes && !(typeof e.notes_zh === 'string' && e.notes_zh.trim()));
    assert.deepEqual(missing.map((e) => e.id), [], 'entries whose notes have no notes_zh');
  });

  // Product, model and field names, units and symbols stay as written
  // (the page's rule for a translated text: i18n.untranslated); English
  // prose does not. The numbers of the English note are all there.
  test(`data/${file}: each notes_zh is Chinese and keeps the note's numbers`, () => {
    for (const e of entries(file, key)) {
      if (!e.notes_zh) continue;
      // Names stay as written: one joined by a hyphen (ml-engineering,
      // llm-analysis) copied from the English note, the entry's own field
      // names (layers, heads), the catalog's values (null, true, false)
      // and the names below, which are written in small letters.
      const names = new Set((e.notes.match(/[a-z0-9]+(?:-[a-z0-9]+)+/g) || []).concat(Object.keys(e), LOWERCASE_NAMES));
      const left = untranslated(e.notes_zh).filter((w) => ![...names].some((n) => n === w || n.startsWith(w + '-')));
      assert.deepEqual(left, [], `${e.id}: English words in notes_zh`);
      assert.match(e.notes_zh, /[\u4e00-\u9fff]/, `${e.id}: notes_zh has no Chinese`);
      const numbers = (s) => (s.match(/\d+(?:\.\d+)?/g) || []).sort();
      const zh = new Set(numbers(e.notes_zh));
      assert.deepEqual(numbers(e.notes).filter((n) => !zh.has(n)), [], `${e.id}: numbers of notes missing from notes_zh`);
    }
  });
}
