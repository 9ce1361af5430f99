// Pasted configs as Python's json module writes them (web/src/format/json-text.js).
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { fileURLToPath } from 'url';
import { withoutPythonNumbers, parseJsonLenient } from '../../web/src/format/json-text.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('bare NaN and Infinity outside strings read as null; inside strings they stay', () => {
  const text = '{"time_step_limit": [0.0, Infinity], "a": -Infinity, "b": NaN, "name": "NaN Infinity \\" -Infinity"}';
  assert.deepEqual(parseJsonLenient(text), {
    time_step_limit: [0, null], a: null, b: null, name: 'NaN Infinity " -Infinity',
  });
});

test('words that only begin like them are not touched, and bad JSON keeps its own error', () => {
  assert.equal(withoutPythonNumbers('{"x": Infinityx}'), '{"x": Infinityx}');
  assert.throws(() => parseJsonLenient('{"x": Infinityx}'), SyntaxError);
  assert.throws(() => parseJsonLenient('{"x": 1,}'), SyntaxError);
  const plain = '{"hidden_size": 4096}';
  assert.equal(withoutPythonNumbers(plain), plain);
});

test("NVIDIA Nemotron 3 Super's config.json as published (time_step_limit with Infinity) parses", () => {
  // The catalog's fixture stores Python's Infinity as 1.797e308 (the largest
  // double) so that the engine's strict reader takes it; put the word back.
  const fixture = fs.readFileSync(path.join(ROOT, 'tests/fixtures/hf_configs/nemotron-3-super-120b-a12b.json'), 'utf8');
  const published = fixture.replace(/1\.7976931348623157e\+308/g, 'Infinity');
  assert.notEqual(published, fixture, 'the fixture holds the stand-in for Infinity');
  assert.throws(() => JSON.parse(published), SyntaxError);
  // Everything else reads as the fixture does; the Infinity reads as null.
  const expected = JSON.parse(fixture, (key, value) => (value === Number.MAX_VALUE ? null : value));
  assert.deepEqual(parseJsonLenient(published), expected);
});
