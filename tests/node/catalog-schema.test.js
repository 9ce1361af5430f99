// The catalogs conform to their JSON Schemas (data/schema), checked by ajv.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const Ajv = require('ajv');

const root = path.resolve(__dirname, '../..');
const read = (file) => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));

function validator(schemaFile) {
  const schema = read(schemaFile);
  delete schema.$schema;  // ajv's default build knows draft-07; the keywords used are the same
  return new Ajv({ allErrors: true, strict: false }).compile(schema);
}

for (const [data, schema] of [['data/gpus.json', 'data/schema/gpus.schema.json'],
  ['data/models.json', 'data/schema/models.schema.json']]) {
  test(`${data} conforms to ${schema}`, () => {
    const validate = validator(schema);
    const ok = validate(read(data));
    assert.ok(ok, JSON.stringify(validate.errors && validate.errors.slice(0, 5), null, 1));
  });

  test(`${schema} rejects an entry with an unknown key`, () => {
    const validate = validator(schema);
    const catalog = read(data);
    const list = catalog.gpus || catalog.models;
    list[0].unexpected_key = 1;
    assert.strictEqual(validate(catalog), false);
  });
}

// Speech and diffusion entries need their workload_shape; other kinds take none.
test('data/schema/models.schema.json checks the workload and its shape', () => {
  const validate = validator('data/schema/models.schema.json');
  const catalog = read('data/models.json');
  assert.ok(validate(catalog));
  const cases = [
    ['speech model without a shape', (m) => { m['whisper-large-v3'].workload_shape = null; }],
    ['unknown component role', (m) => { m['flux.1-dev'].workload_shape.components[0].role = 'tokenizer'; }],
    ['video shape without frames', (m) => { delete m.hunyuanvideo.workload_shape.default_frames; }],
    ['shape on an LLM', (m) => { m['llama-3.1-8b'].workload_shape = m['flux.1-dev'].workload_shape; }],
    ['unknown workload', (m) => { m['bge-m3'].workload = 'tts'; }],
  ];
  for (const [what, mutate] of cases) {
    const copy = JSON.parse(JSON.stringify(catalog));
    mutate(Object.fromEntries(copy.models.map((m) => [m.id, m])));
    assert.strictEqual(validate(copy), false, what);
  }
});

// DeepSeek-V4's compressed_attention: the catalog entries validate; a missing
// ratio, an unknown key or a zero window is refused.
test('data/schema/models.schema.json checks compressed_attention', () => {
  const validate = validator('data/schema/models.schema.json');
  const catalog = read('data/models.json');
  assert.ok(validate(catalog));
  const byId = (c) => Object.fromEntries(c.models.map((m) => [m.id, m]));
  assert.strictEqual(byId(catalog)['deepseek-v4-flash'].compressed_attention.csa_layers, 21);
  const cases = [
    ['no hca_ratio', (m) => { delete m['deepseek-v4-flash'].compressed_attention.hca_ratio; }],
    ['unknown key', (m) => { m['deepseek-v4-pro'].compressed_attention.ratio = 4; }],
    ['zero window', (m) => { m['deepseek-v4-flash'].compressed_attention.window = 0; }],
  ];
  for (const [what, mutate] of cases) {
    const copy = JSON.parse(JSON.stringify(catalog));
    mutate(byId(copy));
    assert.strictEqual(validate(copy), false, what);
  }
});

// cloud_prices is optional; each price names its currency, month and source.
test('data/schema/gpus.schema.json checks cloud_prices and a null bandwidth', () => {
  const validate = validator('data/schema/gpus.schema.json');
  const catalog = read('data/gpus.json');
  const byId = (c) => Object.fromEntries(c.gpus.map((g) => [g.id, g]));
  assert.ok(validate(catalog));
  assert.strictEqual(byId(catalog)['mlu590'].bandwidth_gbps, null);
  const cases = [
    ['currency outside usd/cny', (g) => { g['rtx-4090'].cloud_prices[0].currency = 'eur'; }],
    ['date not YYYY-MM', (g) => { g['rtx-4090'].cloud_prices[0].date = '2026-8'; }],
    ['price without a source', (g) => { delete g['rtx-4090'].cloud_prices[0].source; }],
    ['negative price', (g) => { g['rtx-4090'].cloud_prices[0].per_gpu_hour = -1; }],
    ['bandwidth as text', (g) => { g['mlu590'].bandwidth_gbps = 'n/a'; }],
  ];
  for (const [what, mutate] of cases) {
    const copy = JSON.parse(JSON.stringify(catalog));
    mutate(byId(copy));
    assert.strictEqual(validate(copy), false, what);
  }
});

// A card without a purchase price in one currency says so in its price_note
// (issue 16: a price in USD and CNY for every card sold, or null with a note).
test('every GPU without a USD or CNY price says which is missing in price_note', () => {
  const missing = [];
  for (const g of read('data/gpus.json').gpus) {
    const note = g.price_note || '';
    if (g.price_usd === null && g.price_cny === null) {
      if (!note.trim()) missing.push(`${g.id}: no price and no note`);
    } else if (g.price_cny === null && !/CNY|yuan|RMB/.test(note)) {
      missing.push(`${g.id}: USD price, note silent on CNY`);
    } else if (g.price_usd === null && !/USD|dollar|\$/.test(note)) {
      missing.push(`${g.id}: CNY price, note silent on USD`);
    }
  }
  assert.deepStrictEqual(missing, []);
});

test('data/schema/gpus.schema.json wants a price_note beside a null price', () => {
  const validate = validator('data/schema/gpus.schema.json');
  const catalog = read('data/gpus.json');
  const byId = (c) => Object.fromEntries(c.gpus.map((g) => [g.id, g]));
  const cases = [
    ['null USD price, empty note', (g) => { g['l20'].price_usd = null; g['l20'].price_note = ''; }],
    ['null CNY price, empty note', (g) => { g['rtx-5090'].price_cny = null; g['rtx-5090'].price_note = ''; }],
  ];
  for (const [what, mutate] of cases) {
    const copy = JSON.parse(JSON.stringify(catalog));
    mutate(byId(copy));
    assert.strictEqual(validate(copy), false, what);
  }
  // Both prices known: the note may be empty.
  const copy = JSON.parse(JSON.stringify(catalog));
  Object.assign(byId(copy)['rtx-4090'], { price_note: '' });
  assert.ok(validate(copy));
});
