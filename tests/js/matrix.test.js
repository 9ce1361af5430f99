// Matrix row and column order (web/js/matrix-view.js) and the piecewise
// loading of the matrix (web/js/matrix-data.js), against a stand-in engine
// that records its calls. The stand-in's figures are made up: the tests
// check where each cell lands, not what the engine computes.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');

const C = globalThis.Caliper = globalThis.Caliper || {};
require('../../web/js/i18n.js');
const S = require('../../web/js/state.js');
require('../../web/js/cells.js');
require('../../web/js/dom.js');
const view = require('../../web/js/matrix-view.js');
require('../../web/js/custom-rows.js');
const data = require('../../web/js/matrix-data.js');

const MODELS = [
  { id: 'b-7b', name: 'B 7B', family: 'B', params_b: 7 }, { id: 'a-70b', name: 'A 70B', family: 'A', params_b: 70 },
  { id: 'a-8b', name: 'A 8B', family: 'A', params_b: 8 }, { id: 'b-1b', name: 'B 1B', family: 'B', params_b: 1 }];
const GPUS = [
  { id: 'h100', name: 'H100', group: 'datacenter' }, { id: 'rtx', name: 'RTX', group: 'consumer' },
  { id: 'mi300', name: 'MI300', group: 'other' }, { id: 'a800', name: 'A800', group: 'china' }];

// A cell whose figure encodes its model and GPU, so a misplaced cell shows.
function cellFor(m, g) { return { status: 'fits', gpus_needed: 1, decode_tokens_per_s: m * 10 + g }; }

function fakeEngine(calls, allModels = MODELS, allGpus = GPUS) {
  // Fresh objects on every call, as JSON.parse gives the page.
  const pick = (list, value) => (value === 'all' ? list : list.filter((x) => value.indexOf(x.id) >= 0)
    .sort((x, y) => value.indexOf(x.id) - value.indexOf(y.id))).map((x) => Object.assign({}, x));
  const index = (list, x) => list.findIndex((y) => y.id === x.id);
  return {
    matrix(req) {
      calls.push(req);
      const models = pick(allModels, req.model), gpus = pick(allGpus, req.gpu);
      return { ok: true, models, gpus,
        cells: models.map((m) => gpus.map((g) => cellFor(index(allModels, m), index(allGpus, g)))) };
    },
    estimate(req) {
      calls.push(req);
      return { ok: true, gpus_needed: 2, plan: { nodes: 1, tp: 2 }, memory: { total_gib: 9 }, decode_tokens_per_s: 5, strategy: 'tensor' };
    }
  };
}

test('columns follow the class groups, unknown groups last', () => {
  const gpus = [{ group: 'other' }, { group: 'consumer' }, { group: 'weird' }, { group: 'datacenter' }, { group: 'consumer' }];
  assert.deepEqual(view.columnOrder(gpus), [1, 4, 3, 0, 2]);
});

test('rows group by family in catalog order, by size inside a family', () => {
  const groups = view.rowGroups({ models: MODELS, gpus: GPUS, cells: [] }, S.defaults());
  assert.deepEqual(groups.map((g) => [g.family, g.rows]), [['B', [3, 0]], ['A', [2, 1]]]);
});

test('flat sorts: by size, by name, by a GPU column with empty cells last', () => {
  const m = { models: MODELS, gpus: GPUS, cells: MODELS.map((x, i) => GPUS.map((g, j) => cellFor(i, j))) };
  m.cells[2][0] = { status: 'no' };
  const size = view.rowGroups(m, Object.assign(S.defaults(), { sort: 'size', dir: 'desc' }));
  assert.deepEqual(size[0].rows, [1, 2, 0, 3]);
  const name = view.rowGroups(m, Object.assign(S.defaults(), { sort: 'name', dir: 'asc' }));
  assert.deepEqual(name[0].rows.map((i) => MODELS[i].name), ['A 70B', 'A 8B', 'B 1B', 'B 7B']);
  const gpu = view.rowGroups(m, Object.assign(S.defaults(), { sort: 'gpu', sg: 'h100', dir: 'desc' }));
  assert.deepEqual(gpu[0].rows, [3, 1, 0, 2], 'speed descending, the cell that does not fit last');
});

test('a slow engine: headers first, then only the cells asked for', () => {
  const calls = [];
  C.engine = fakeEngine(calls);
  const job = data.start(S.defaults(), null);
  assert.equal(calls.length, 2, 'one call for the models, one for the GPUs');
  assert.deepEqual([calls[0].gpu, calls[1].model], [[], []]);
  assert.ok(job.matrix.cells.every((row) => row === null));
  data.load(job, [1, 2], [0, 3]);
  assert.deepEqual(calls[2].model, ['a-70b', 'a-8b']);
  assert.deepEqual(calls[2].gpu, ['h100', 'a800']);
  assert.equal(job.matrix.cells[1][3].decode_tokens_per_s, 13);
  assert.equal(job.matrix.cells[2][0].decode_tokens_per_s, 20);
  assert.equal(job.matrix.cells[2][1], null, 'not asked for yet');
});

test('the rest loads in pieces, nearest rows first, then the matrix is whole', async () => {
  const calls = [];
  C.engine = fakeEngine(calls);
  const job = data.start(S.defaults(), null);
  data.load(job, [0], null);
  const pieces = [];
  await new Promise((resolve) => data.continueInBackground(job, [2, 1, 0, 3], (rows) => pieces.push(rows), resolve));
  assert.ok(job.done);
  assert.deepEqual([].concat(...pieces), [2, 1, 3], 'row 0 was already whole');
  job.matrix.cells.forEach((row, i) => row.forEach((cell, j) => assert.equal(cell.decode_tokens_per_s, i * 10 + j)));
});

test('a cancelled job stops loading', async () => {
  C.engine = fakeEngine([]);
  const job = data.start(S.defaults(), null);
  let pieces = 0;
  data.continueInBackground(job, [0, 1, 2, 3], () => { pieces += 1; job.cancelled = true; }, () => assert.fail('not done'));
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(pieces, 1);
  assert.ok(!job.done);
});

test('a fast engine answers the whole matrix in one call', () => {
  const calls = [];
  // 12 x 6 cells: enough for the loader to time the engine (it ignores tiny calls).
  const models = Array.from({ length: 12 }, (x, i) => ({ id: 'm' + i, name: 'M' + i, family: 'F', params_b: i + 1 }));
  const gpus = Array.from({ length: 6 }, (x, i) => ({ id: 'g' + i, name: 'G' + i, group: 'datacenter' }));
  C.engine = fakeEngine(calls, models, gpus);
  const first = data.start(S.defaults(), null);
  data.complete(first);  // a large call teaches the loader the engine's speed
  const before = calls.length;
  const job = data.start(S.defaults(), null);
  assert.ok(job.done);
  assert.equal(calls.length - before, 3, 'models, GPUs, then every cell at once');
});

test('the user\'s model and GPU come first, their cells from estimates', () => {
  const calls = [];
  C.engine = fakeEngine(calls);
  const state = Object.assign(S.defaults(), { cm: { name: 'Mine', params_b: 3, model: { params_b: 3 } },
    cg: { name: 'Card', gpu: { memory_gib: 48 } } });
  const job = data.complete(data.start(state, null));
  assert.equal(job.models[0].id, 'custom-model');
  assert.equal(job.gpus[0].id, 'custom-gpu');
  assert.equal(job.cells[0][1].status, 'fits-multi', 'estimate with 2 GPUs needed in one node');
  assert.equal(job.cells[1][0].needs_nvlink, true);
  assert.equal(job.cells[1][1].decode_tokens_per_s, 0, 'the catalog cell of model 0 × GPU 0 is still the matrix call\'s');
  const estimates = calls.filter((c) => c.gpu_count === 'auto');
  assert.equal(estimates.length, MODELS.length + GPUS.length + 1, 'custom column, custom row and their crossing');
});
