// Matrix row and column order (web/src/matrix/view.js) and the loading of
// the matrix in few large engine calls (web/src/matrix/data.js), against a
// stand-in engine that records its calls. The stand-in's figures are made
// up: the tests check where each cell lands, not what the engine computes.
import test from 'node:test';
import assert from 'node:assert/strict';
import * as S from '../../web/src/state/defaults.js';
import * as view from '../../web/src/matrix/view.js';
import * as data from '../../web/src/matrix/data.js';

// The engine the next job asks: each test hands in its stand-in.
let door = null;
const start = (state, gpuIds, catalogKey) => data.start(state, gpuIds, catalogKey, door);

const MODELS = [
  { id: 'b-7b', name: 'B 7B', family: 'B', params_b: 7 }, { id: 'a-70b', name: 'A 70B', family: 'A', params_b: 70 },
  { id: 'a-8b', name: 'A 8B', family: 'A', params_b: 8 }, { id: 'b-1b', name: 'B 1B', family: 'B', params_b: 1 }];
const GPUS = [
  { id: 'h100', name: 'H100', group: 'datacenter' }, { id: 'rtx', name: 'RTX', group: 'consumer' },
  { id: 'mi300', name: 'MI300', group: 'other' }, { id: 'a800', name: 'A800', group: 'china' }];

// A cell with every field of docs/CONTRACT.md's matrix cell, whose figure encodes
// its model and GPU, so a misplaced cell shows.
function cellFor(m, g) {
  return { cost_usd: null, decode_tokens_per_s: m * 10 + g, fits_one: true, gpu_count: 1, gpus_needed: 1, needs_nvlink: false, nodes: 1,
    prefill_tokens_per_s: 1000 + m * 10 + g, status: 'fits', strategy: 'single', tight: (m + g) % 2 === 1, total_gib: 5 + m, train_hours: null,
    train_tokens_per_s: null, usd_per_hour: 2 + g, usd_per_million_tokens: 0.5, users_at_slo: null, users_at_slo_fp8: false, users_at_slo_low: null,
    workload_figure: null };
}
let extraField = null;  // a field the engine may add later

// Lists hold ids or, for the user's entries, objects (index -1 in the cells);
// the stand-in ignores filters.
function fakeEngine(calls, allModels = MODELS, allGpus = GPUS) {
  // Fresh objects on every call, as JSON.parse gives the page.
  const pick = (list, value) => (value === 'all' ? list.map((x) => Object.assign({}, x))
    : value.map((v) => (typeof v === 'object' ? Object.assign({ id: 'object' }, v) : Object.assign({}, list.find((x) => x.id === v)))));
  const index = (list, x) => list.findIndex((y) => y.id === x.id);
  return {
    EngineError: function EngineError(e) { this.code = e.code; this.message = e.message; },
    matrix(req) {
      calls.push(req);
      const models = pick(allModels, req.model), gpus = pick(allGpus, req.gpu);
      const cells = models.map((m) => gpus.map((g) => Object.assign(cellFor(index(allModels, m), index(allGpus, g)),
        extraField ? { [extraField]: index(allGpus, g) } : {})));
      const flat = [].concat(...cells);
      if (req.cells_layout === 'values') {
        // The engine's numbers: field by field, null as NaN, booleans as 1/0,
        // status and strategy as indices into the lists it gives.
        const fields = Object.keys(flat[0] || cellFor(0, 0)), status = ['fits', 'fits-multi', 'multi-node', 'no'];
        const strategy = ['auto', 'single', 'ddp', 'zero1', 'zero2', 'zero3', 'fsdp', 'tensor', 'pipeline', 'layer-split'];
        const values = new Float64Array(fields.length * flat.length);
        fields.forEach((f, j) => flat.forEach((c, i) => {
          const v = c[f];
          values[j * flat.length + i] = v === null ? NaN : f === 'status' ? status.indexOf(v) : f === 'strategy' ? strategy.indexOf(v) : Number(v);
        }));
        return { ok: true, models, gpus, cell_values: { fields, cells: flat.length, status, strategy, values } };
      }
      if (req.cells_layout !== 'columns') return { ok: true, models, gpus, cells };
      // The engine's compact form: one row-major array per field.
      const cellColumns = {};
      for (const key of Object.keys(flat[0] || {})) cellColumns[key] = flat.map((c) => c[key]);
      return { ok: true, models, gpus, cell_columns: cellColumns };
    }
  };
}

test('short GPU names for the column heads: no vendor, no marketed memory, brackets kept only with something in them', () => {
  // Names as data/gpus.json spells them.
  assert.equal(view.shortGpuName('NVIDIA GH200 Grace Hopper (96GB HBM3)'), 'GH200 Grace Hopper (HBM3)');
  assert.equal(view.shortGpuName('NVIDIA RTX PRO 5000 Blackwell (48GB)'), 'RTX PRO 5000 Blackwell');
  assert.equal(view.shortGpuName('Apple M4 Max (40-core GPU, 48GB)'), 'M4 Max (40-core GPU)');
  assert.equal(view.shortGpuName('NVIDIA GeForce RTX 2080 Ti 22GB (modified)'), 'RTX 2080 Ti (modified)');
  assert.equal(view.shortGpuName('NVIDIA H200 NVL 141GB (PCIe)'), 'H200 NVL (PCIe)');
  assert.equal(view.shortGpuName('NVIDIA GB300 (per Blackwell Ultra GPU, NVL72)'), 'GB300', 'a long bracket is left to the title');
  assert.equal(view.shortGpuName('NVIDIA DGX Spark (GB10)'), 'DGX Spark (GB10)');
});

test('columns follow the class groups, unknown groups last', () => {
  const gpus = [{ group: 'other' }, { group: 'consumer' }, { group: 'weird' }, { group: 'datacenter' }, { group: 'consumer' }];
  assert.deepEqual(view.columnOrder(gpus), [1, 4, 3, 0, 2]);
});

test('rows group by family in catalog order, by size inside a family', () => {
  const groups = view.rowGroups({ models: MODELS, gpus: GPUS, cells: [] }, S.defaults());
  assert.deepEqual(groups.map((g) => [g.family, g.rows]), [['B', [3, 0]], ['A', [2, 1]]]);
});

test('current models first: families by their newest release date, undated families last in catalog order', () => {
  // Release dates as the catalog writes them (YYYY-MM-DD); family C has none.
  const models = [{ id: 'a-8b', family: 'A', params_b: 8, release_date: '2023-07-18' },
    { id: 'c-1b', family: 'C', params_b: 1, release_date: null },
    { id: 'b-7b', family: 'B', params_b: 7, release_date: '2025-04-29' },
    { id: 'a-70b', family: 'A', params_b: 70, release_date: '2024-07-23' }];
  const groups = view.rowGroups({ models, gpus: GPUS, cells: [] }, S.defaults());
  assert.deepEqual(groups.map((g) => [g.family, g.rows]), [['B', [2]], ['A', [0, 3]], ['C', [1]]]);
  const oldest = view.rowGroups({ models, gpus: GPUS, cells: [] }, Object.assign(S.defaults(), { dir: 'desc' }));
  assert.deepEqual(oldest.map((g) => g.family), ['A', 'B', 'C']);
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

// The selection keys of every engine request the loader made.
function selections(calls) {
  return calls.map((c) => ({ model: c.model, gpu: c.gpu, mf: c.model_filter, gf: c.gpu_filter }));
}

test('headers first (no cells), kept while the filters stay the same', () => {
  const calls = [];
  door = fakeEngine(calls);
  data.clearCache();
  const job = start(S.defaults(), null, 1);
  assert.equal(calls.length, 2, 'one call for the models, one for the GPUs');
  assert.deepEqual([calls[0].model, calls[0].gpu, calls[1].model, calls[1].gpu], ['all', [], [], 'all']);
  assert.ok(job.matrix.cells.every((row) => row === null));
  start(Object.assign(S.defaults(), { w: 'int8', ctx: 8192 }), null, 1);
  assert.equal(calls.length, 2, 'a workload change reuses the headers');
  start(S.defaults(), null, 2);
  assert.equal(calls.length, 4, 'a new catalog asks again');
});

test('the cells in view: one call with the ids in view and no filter', () => {
  const calls = [];
  door = fakeEngine(calls);
  data.clearCache();
  const state = Object.assign(S.defaults(), { pmin: 2, cls: ['datacenter'] });
  const job = start(state, null, 1);
  calls.length = 0;
  data.loadWindow(job, [1, 2], [0, 3]);
  assert.equal(calls.length, 1);
  assert.deepEqual(selections(calls), [{ model: ['a-70b', 'a-8b'], gpu: ['h100', 'a800'], mf: undefined, gf: undefined }]);
  assert.equal(calls[0].max_gpus, 8, 'the workload travels with it');
  assert.equal(job.matrix.cells[1][3].decode_tokens_per_s, 13);
  assert.equal(job.matrix.cells[2][0].decode_tokens_per_s, 20);
  assert.equal(job.matrix.cells[2][1], null, 'not asked for yet');
  data.loadWindow(job, [1, 2], [0, 3]);
  assert.equal(calls.length, 1, 'cells already loaded are not asked for again');
});

test('the rest: every cell in one call, "all" with the filters, never a list of every id', () => {
  const calls = [];
  door = fakeEngine(calls);
  data.clearCache();
  const state = Object.assign(S.defaults(), { pmin: 2, cls: ['datacenter'] });
  const job = start(state, null, 1);
  data.loadWindow(job, [0], [0]);
  calls.length = 0;
  data.loadRest(job);
  assert.ok(job.done);
  assert.deepEqual(selections(calls), [{ model: 'all', gpu: 'all', mf: { min_params_b: 2 }, gf: { groups: ['datacenter'] } }]);
  job.matrix.cells.forEach((row, i) => row.forEach((cell, j) => assert.equal(cell.decode_tokens_per_s, i * 10 + j)));
  data.loadRest(job);
  assert.equal(calls.length, 1, 'a whole matrix is not asked for again');
});

test('cells from the column layout carry every field the engine sent, a new one too', () => {
  for (const extra of [null, 'kv_pool_gib']) {
    extraField = extra;
    door = fakeEngine([]);
    data.clearCache();
    const job = start(S.defaults(), null, 1);
    data.loadRest(job);
    job.matrix.cells.forEach((row, i) => row.forEach((cell, j) => {
      const want = Object.assign(cellFor(i, j), extra ? { [extra]: j } : {});
      assert.deepEqual(Object.assign({}, cell), want, `cell ${i} × ${j}${extra ? ' with ' + extra : ''}`);
    }));
  }
  extraField = null;
});

test('cells from the values layout read back as the engine\'s cells: nulls, booleans, names', () => {
  const calls = [];
  door = Object.assign(fakeEngine(calls), { takesValues: () => true });
  data.clearCache();
  const job = start(S.defaults(), null, 1);
  data.loadRest(job);
  assert.equal(calls[calls.length - 1].cells_layout, 'values', 'the page asks for values when the engine takes them');
  job.matrix.cells.forEach((row, i) => row.forEach((cell, j) => {
    const want = cellFor(i, j);
    // Each field as the page reads it, and the cell as the JSON export writes it.
    assert.deepEqual(Object.fromEntries(Object.keys(want).map((k) => [k, cell[k]])), want, `cell ${i} × ${j}`);
    assert.deepEqual(JSON.parse(JSON.stringify(cell)), want, `cell ${i} × ${j} as JSON`);
  }));
  // A field the page does not know: refused as a mismatch, not misread.
  extraField = 'kv_pool_gib';
  data.clearCache();
  assert.throws(() => data.loadRest(start(S.defaults(), null, 1)), (e) => e.code === 'engine_mismatch');
  extraField = null;
});

test('a GPU text search sends the matching ids only', () => {
  const calls = [];
  door = fakeEngine(calls);
  data.clearCache();
  const job = start(S.defaults(), ['rtx', 'h100'], 1);
  data.loadRest(job);
  assert.deepEqual(calls.map((c) => c.gpu), [[], ['rtx', 'h100'], ['rtx', 'h100']]);
  assert.deepEqual(job.matrix.gpus.map((g) => g.id), ['rtx', 'h100']);
  assert.equal(job.matrix.cells[0][1].decode_tokens_per_s, 0, 'model 0 × GPU 0 (h100) in the second column');
});

test('sorting by a GPU loads its whole column first', () => {
  const calls = [];
  door = fakeEngine(calls);
  data.clearCache();
  const job = start(S.defaults(), null, 1);
  calls.length = 0;
  data.loadColumn(job, 'mi300');
  assert.deepEqual(selections(calls), [{ model: 'all', gpu: ['mi300'], mf: undefined, gf: undefined }]);
  assert.deepEqual(job.matrix.cells.map((row) => row[2].decode_tokens_per_s), [2, 12, 22, 32]);
});

test('the user\'s model and GPU come first, sent as objects inside the lists', () => {
  const calls = [];
  door = fakeEngine(calls);
  data.clearCache();
  const cm = { name: 'Mine', params_b: 3, model: { params_b: 3 } }, cg = { name: 'Card', gpu: { memory_gib: 48 } };
  const state = Object.assign(S.defaults(), { cm, cg, q: 'b' });
  const job = start(state, null, 1);
  calls.length = 0;
  const m = data.loadRest(job);
  assert.equal(m.models[0].id, 'custom-model');
  assert.equal(m.gpus[0].id, 'custom-gpu');
  // The catalog block keeps its filters; the user's entries go without the
  // filter of their own side (a search must not drop the user's model).
  assert.deepEqual(selections(calls), [
    { model: [cm.model], gpu: [cg.gpu], mf: undefined, gf: undefined },
    { model: [cm.model], gpu: 'all', mf: undefined, gf: undefined },
    { model: 'all', gpu: [cg.gpu], mf: { search: 'b' }, gf: undefined },
    { model: 'all', gpu: 'all', mf: { search: 'b' }, gf: undefined }]);
  assert.equal(m.cells[1][1].decode_tokens_per_s, 0, 'catalog model 0 × catalog GPU 0');
  assert.equal(m.cells[2][4].decode_tokens_per_s, 13, 'catalog model 1 × catalog GPU 3');
  assert.ok(m.cells.every((row) => row.every((cell) => cell !== null)), 'every cell loaded');
});

test('a rejected user model leaves its row empty and keeps the engine\'s error', () => {
  const calls = [];
  const engine = fakeEngine(calls);
  const matrix = engine.matrix;
  engine.matrix = (req) => {
    if (Array.isArray(req.model) && typeof req.model[0] === 'object') {
      throw new door.EngineError({ code: 'invalid_value', message: 'bad heads', path: '/model/0/num_attention_heads' });
    }
    return matrix(req);
  };
  engine.EngineError = function (e) { Object.assign(this, e); };
  door = engine;
  data.clearCache();
  const job = start(Object.assign(S.defaults(), { cm: { name: 'Bad', params_b: 7, model: { params_b: -1 } } }), null, 1);
  data.loadRest(job);
  assert.equal(job.error.code, 'invalid_value');
  assert.ok(job.matrix.cells[0].every((cell) => cell.status === 'no'));
  assert.equal(job.matrix.cells[1][0].decode_tokens_per_s, 0, 'the catalog rows still load');
});
