// The engine names the page uses (web/src/state/vocabulary.js) against the
// engine's own description of its interface (docs/CONTRACT.md "Describe"):
// a name the page offers or reads that the engine does not list fails here.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { spawnSync } from 'child_process';
import { fileURLToPath } from 'url';
import * as vocabulary from '../../web/src/state/vocabulary.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'build/bin/caliper');

// A description that lists exactly the page's names.
function describing(names) {
  return { enums: names.enums, matrix_cell_fields: names.matrix_cell_fields, presets: names.presets.map((id) => ({ id, request: {} })) };
}

test('a description listing every name the page uses leaves none missing', () => {
  assert.deepEqual(vocabulary.missingFrom(describing(vocabulary.pageNames())), []);
});

test('a name the page uses and the description lacks is reported, by its key', () => {
  const names = vocabulary.pageNames();
  const d = describing(names);
  d.enums = Object.assign({}, d.enums, { weights: d.enums.weights.filter((w) => w !== 'Q4_K_M') });
  d.matrix_cell_fields = d.matrix_cell_fields.filter((f) => f !== 'strategy');
  d.presets = d.presets.filter((p) => p.id !== 'lora');
  assert.deepEqual(vocabulary.missingFrom(d), ['enums.weights: Q4_K_M', 'matrix_cell_fields: strategy', 'presets: lora']);
  assert.ok(vocabulary.missingFrom({}).length > 20, 'an empty description lacks everything');
});

test('the page names only what the engine\'s describe lists', (t) => {
  if (!fs.existsSync(CLI)) { t.skip('build/bin/caliper is missing: build it first (scripts/build.sh)'); return; }
  const r = spawnSync(CLI, ['describe'], { encoding: 'utf8' });
  let description = null;
  try { description = JSON.parse(r.stdout); } catch (e) { /* an engine without describe */ }
  if (r.status !== 0 || !description || !description.enums) { t.skip('this engine has no describe command yet'); return; }
  assert.deepEqual(vocabulary.missingFrom(description), []);
});
