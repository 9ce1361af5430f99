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
