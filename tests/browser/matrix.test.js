// The matrix in a real browser: the whole catalog, every workload control
// against the native engine's answer, and the URL that reopens the same view.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');
const cli = require('./support/cli.js');
const cells = require('./support/cells.js');

async function setControl(page, step) {
  if (step.kind === 'select') {
    await page.selectOption('#' + step.id, String(step.value));
  } else {
    await page.fill('#' + step.id, String(step.value));
    await page.dispatchEvent('#' + step.id, 'change');
  }
}

// Each control in turn, each change kept for the next (the state accumulates);
// values chosen so the cells in view keep a mix of fits, multi-GPU and no-fit.
// check(request): what the page must now ask the engine.
const STEPS = [
  { id: 'engine', kind: 'select', value: 'transformers', key: 'eng', want: 'transformers', check: (r) => r.engine === 'transformers' },
  { id: 'weights', kind: 'select', value: 'int8', key: 'w', want: 'int8', check: (r) => r.weights === 'int8' },
  { id: 'context', kind: 'number', value: 2048, key: 'ctx', want: 2048,
    check: (r) => r.prompt_tokens + r.output_tokens === 2048 && r.output_tokens > 0 },
  { id: 'batch', kind: 'number', value: 2, key: 'b', want: 2, check: (r) => r.batch === 2 },
  { id: 'max-gpus', kind: 'select', value: 16, key: 'g', want: 16, check: (r) => r.max_gpus === 16 },
  { id: 'task', kind: 'select', value: 'lora', key: 'task', want: 'lora',
    check: (r) => r.task === 'finetune' && r.method === 'lora' && r.seq_len === 2048 },
  // Training's own knobs, which the matrix once kept its cells through
  // (checkpointing off: the activations of every layer held, more memory;
  // two GPUs a server: a plan on more cards spans servers).
  { id: 'checkpointing', kind: 'select', value: 'off', key: 'checkpointing', url: 'ck', want: 'off',
    check: (r) => r.gradient_checkpointing === false },
  { id: 'gpus-per-node', kind: 'number', value: 2, key: 'gpusPerNode', url: 'gpn', want: 2,
    check: (r) => r.interconnect && r.interconnect.gpus_per_node === 2 },
];

function byKey(list) {
  return new Map(list.map((c) => [c.model + '|' + c.gpu, c.cls + ' ' + c.text]));
}

function controlValues(page) {
  return page.evaluate(() => ['task', 'weights', 'context', 'batch', 'max-gpus', 'engine']
    .map((id) => [id, document.getElementById(id).value]));
}

h.forEachOrigin('matrix', (env) => {
  let page;
  let finalCells;

  test('the matrix shows the whole catalog: one row per model, one column per GPU', async () => {
    cli.requireCli();
    page = await h.openPage(env.context, env.url());
    await h.waitRowsBuilt(page);
    const models = cli.listModels(), gpus = cli.listGpus();
    const families = new Set(models.map((m) => m.family));
    // The table declares every row and column, though head and body hold those near the view.
    const counts = await page.$eval('#matrix', (t) => [t.getAttribute('aria-rowcount'), t.getAttribute('aria-colcount')].map(Number));
    assert.deepEqual(counts, [2 + families.size + models.length, 2 + gpus.length], 'aria-rowcount (2 head rows, a row per family and per model), aria-colcount');
    // Scrolled end to end, every GPU's header and every model's row is met;
    // every written row spans every GPU column (cells, plus spacers for the
    // columns not written), and each cell sits under its GPU's header (the
    // same aria-colindex) with its ids.
    const headAt = new Map(), seen = new Set(), cellsAt = [];
    const visit = async (p) => {
      const written = await p.evaluate(() => ({
        head: [...document.querySelectorAll('#matrix thead th[data-gpu-id]')].map((th) => [Number(th.getAttribute('aria-colindex')), th.dataset.gpuId]),
        rows: [...document.querySelectorAll('#matrix tbody tr[data-model-id]')].map((tr) => ({
          id: tr.dataset.modelId,
          span: [...tr.querySelectorAll('td.c, td.pad')].reduce((n, td) => n + td.colSpan, 0),
          cells: [...tr.querySelectorAll('td.c')].map((td) => [td.dataset.modelId === tr.dataset.modelId, td.dataset.gpuId, Number(td.getAttribute('aria-colindex'))])
        }))
      }));
      for (const [at, id] of written.head) {
        if (headAt.has(at)) assert.equal(headAt.get(at), id, `column ${at} keeps its GPU`);
        headAt.set(at, id);
      }
      for (const r of written.rows) {
        seen.add(r.id);
        assert.equal(r.span, gpus.length, `row ${r.id} spans every GPU column`);
        assert.ok(r.cells.length > 0, `row ${r.id} has cells in view`);
        for (const [sameModel, gpu, at] of r.cells) {
          assert.ok(sameModel, `cell of ${r.id} tagged with its model`);
          cellsAt.push([r.id, gpu, at]);
        }
      }
    };
    await h.scrollMatrix(page, 'x', visit);
    await h.scrollMatrix(page, 'y', visit);
    assert.equal(headAt.size, gpus.length, 'a header per GPU column');
    assert.deepEqual(new Set(headAt.values()), new Set(gpus.map((g) => g.id)), 'the headers name every GPU of caliper list gpus');
    for (const [model, gpu, at] of cellsAt) assert.equal(headAt.get(at), gpu, `cell ${model} × ${gpu} under its header`);
    assert.deepEqual(seen, new Set(models.map((m) => m.id)), 'every model row reached by scrolling');
    await page.evaluate(() => { const w = document.querySelector('#matrix-wrap'); w.scrollTop = 0; w.scrollLeft = 0; });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    // The default view, as the engine answers it.
    const { matrixRequest } = await h.pageState(page);
    assert.equal(matrixRequest.model, 'all');
    assert.equal(matrixRequest.gpu, 'all');
    await cells.compareWithEngine(page, matrixRequest, false);
  });

  for (const step of STEPS) {
    test(`changing ${step.id} repaints the cells as the engine computes them`, async () => {
      assert.ok(page, 'the page from the first test');
      const before = byKey(await cells.loadedCells(page));
      await setControl(page, step);
      const { state, matrixRequest, hash } = await h.pageState(page);
      assert.equal(state[step.key], step.want, `state.${step.key}`);
      assert.ok(step.check(matrixRequest), `request after ${step.id}: ${JSON.stringify(matrixRequest)}`);
      assert.ok(new URLSearchParams(hash.slice(1)).has(step.url || step.key), `the URL hash carries ${step.url || step.key}`);
      const status = await page.textContent('#status');
      assert.ok(!(await page.$('#status.error')), `no engine error: ${status}`);
      await cells.compareWithEngine(page, matrixRequest, matrixRequest.task !== 'inference');
      const after = byKey(await cells.loadedCells(page));
      const changed = [...after].filter(([k, v]) => before.has(k) && before.get(k) !== v).length;
      assert.ok(changed > 0, `some cells changed after ${step.id}`);
      finalCells = after;
    });
  }

  test('the URL reopens the same state, controls and cells', async () => {
    assert.ok(page && finalCells, 'the page after the control changes');
    const first = await h.pageState(page);
    const values = await controlValues(page);
    const again = await h.openPage(env.context, first.url);
    const second = await h.pageState(again);
    assert.deepEqual(second.state, first.state);
    assert.equal(second.hash, first.hash);
    assert.deepEqual(await controlValues(again), values);
    const reopened = byKey(await cells.loadedCells(again));
    let compared = 0;
    for (const [k, v] of reopened) {
      if (!finalCells.has(k)) continue;
      assert.equal(v, finalCells.get(k), `cell ${k}`);
      compared++;
    }
    assert.ok(compared >= 50, `cells compared after the reload (${compared})`);
    await again.close();
    await page.close();
  });
});

// The class headers and GPU names in the head: each text's width against the
// room its header has, and whether a name is clamped (the third line cut).
function headFit(page) {
  return page.evaluate(() => {
    const room = (th) => { const cs = getComputedStyle(th); return th.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight); };
    const groups = [...document.querySelectorAll('#matrix thead th.grp')].map((th) => {
      const r = document.createRange();
      r.selectNodeContents(th.firstElementChild);
      return { text: th.textContent, full: th.dataset.full, width: r.getBoundingClientRect().width, room: room(th), lines: r.getClientRects().length };
    });
    const names = [...document.querySelectorAll('#matrix thead th.gcol .gname')].map((g) => ({ text: g.textContent, clamped: g.scrollHeight > g.clientHeight + 1 }));
    return { groups, names, page: document.documentElement.scrollWidth, screen: window.innerWidth };
  });
}

h.forEachOrigin('matrix head', (env) => {
  const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

  test('one GPU column: its class name and its card\'s name are shown whole (en and zh, desktop and phone)', async () => {
    const phone = await env.newContext(PHONE);
    for (const [lang, size] of [['en', 'desktop'], ['zh', 'desktop'], ['en', 'phone'], ['zh', 'phone']]) {
      const at = `${lang} ${size}`;
      // GH200: a single data-centre card with a long name ("GH200 Grace Hopper (HBM3)").
      const page = await h.openPage(size === 'phone' ? phone : env.context, env.url(`lang=${lang}&gq=GH200`));
      const fit = await headFit(page);
      assert.deepEqual(fit.names, [{ text: 'GH200 Grace Hopper (HBM3)', clamped: false }], `${at}: one column, its name whole`);
      assert.equal(fit.groups.length, 1);
      const g = fit.groups[0];
      assert.equal(g.text, g.full, `${at}: the class's full name, not its short form`);
      assert.ok(g.lines === 1 && g.width <= g.room + 0.5, `${at}: "${g.text}" on one line, ${g.width.toFixed(1)} px in ${g.room} px`);
      assert.ok(fit.page <= fit.screen, `${at}: no sideways page`);
      await h.screenshot(page, `matrix-one-column-${lang}-${size}-${env.name}`);
      await page.close();
    }
  });

  test('every class header in view is on one line and whole, many columns or few (zh and en, phone)', async () => {
    const phone = await env.newContext(PHONE);
    for (const hash of ['lang=zh', 'lang=en', 'lang=zh&gq=4090']) {
      const page = await h.openPage(phone, env.url(hash));
      const fit = await headFit(page);
      assert.ok(fit.groups.length >= 1);
      for (const g of fit.groups) {
        assert.ok(g.lines === 1 && g.width <= g.room + 0.5, `${hash}: "${g.text}" ${g.width.toFixed(1)} px in ${g.room} px, ${g.lines} line(s)`);
      }
      await page.close();
    }
  });
});
