// The reader's own model (a pasted Hugging Face config.json) and the "My GPUs"
// inventory, against the native engine's answers for the same requests.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const h = require('./support/harness.js');
const cli = require('./support/cli.js');
const cells = require('./support/cells.js');

const FIXTURES = path.join(h.ROOT, 'tests/fixtures');
const GOOD_CONFIG = fs.readFileSync(path.join(FIXTURES, 'hf_configs/mistral-7b-v0.3.json'), 'utf8');
// num_attention_heads: -32, which the engine rejects with a JSON pointer.
const BAD_CONFIG = fs.readFileSync(path.join(FIXTURES, 'hf_configs_bad/negative-heads.json'), 'utf8');
// model_type glm4_moe_custom, which the engine does not know, with expert keys.
const UNKNOWN_MOE = fs.readFileSync(path.join(FIXTURES, 'hf_configs/custom-unknown-moe.json'), 'utf8');
const INVENTORY = { gpu: '2080 Ti 22GB', count: 4 };
const INVENTORY_TASKS = ['inference', 'lora', 'qlora', 'full'];

// A matrix cell as docs/CONTRACT.md defines status from an estimate at gpu_count
// "auto": gpus_needed within the GPU limit fits (one GPU, several in one
// server, or several servers), otherwise no; tensor parallelism needs NVLink.
function cellFromEstimate(r, maxGpus) {
  const n = r.gpus_needed;
  const nodes = r.plan ? r.plan.nodes : 1;
  const status = n == null || n > maxGpus ? 'no' : n === 1 ? 'fits' : nodes > 1 ? 'multi-node' : 'fits-multi';
  return { ...r, status, needs_nvlink: !!(r.plan && r.plan.tp > 1) };
}

async function pasteConfig(page, text) {
  await page.click('.tabs [data-view="custom"]');
  await page.fill('#cm-config', text);
  await page.click('#custom-model button[type="submit"]');
}

h.forEachOrigin('own model and inventory', (env) => {
  let page;

  test('a pasted config.json adds a model: its row computed as the engine computes it', async () => {
    cli.requireCli();
    page = await h.openPage(env.context, env.url('q=Llama 3.1'));
    await pasteConfig(page, GOOD_CONFIG);
    await page.waitForFunction(() => window.__caliperPage.app.state.cm !== null);
    assert.equal(await page.$('#cm-config-error'), null, 'no error beside the field');
    const cm = await page.evaluate(() => window.__caliperPage.app.state.cm);
    assert.deepEqual(cm.model, JSON.parse(GOOD_CONFIG), 'the config as pasted is the model');
    assert.ok((await page.textContent('#cm-active')).includes(cm.name), 'the page says the model is in use');

    await page.click('.tabs [data-view="matrix"]');
    await page.waitForSelector('#matrix tr[data-model-id="custom-model"]');
    assert.equal(await page.textContent('#matrix tr[data-model-id="custom-model"] th'), cm.name);
    const row = (await cells.loadedCells(page)).filter((c) => c.model === 'custom-model').slice(0, 6);
    assert.ok(row.length >= 3, 'cells of the custom row in view');
    const maxGpus = (await h.pageState(page)).state.g;
    for (const c of row) {
      const req = await page.evaluate((gpu) => {
        const C = window.__caliperPage, s = C.app.state;
        return C.requests.toEstimateRequest(s, s.cm.model, gpu, 'auto');
      }, c.gpu);
      cells.checkCell(c, cellFromEstimate(cli.estimate(req), maxGpus), false);
    }
  });

  test('the own model is offered in the recommend view', async () => {
    assert.ok(page, 'the page from the first test');
    await page.click('.tabs [data-view="recommend"]');
    const offered = await page.$$eval('#rec-model option', (os) => os.map((o) => o.value));
    assert.ok(offered.includes('custom-model'), 'the model list offers the pasted model');
    await page.selectOption('#rec-model', 'custom-model');
    await page.waitForFunction(() => window.__caliperPage.app.state.rm === 'custom-model');
    await page.waitForSelector('#rec-results li.rec-item');
  });

  test('a broken config.json gets the engine\'s message and pointer beside the field; the text stays', async () => {
    assert.ok(page, 'the page from the first test');
    const before = await page.evaluate(() => window.__caliperPage.app.state.cm);
    await pasteConfig(page, BAD_CONFIG);
    await page.waitForSelector('#cm-config-error');
    const req = await page.evaluate((text) => {
      const C = window.__caliperPage;
      return C.requests.toEstimateRequest(C.app.state, JSON.parse(text), C.app.gpus[0].id, 'auto');
    }, BAD_CONFIG);
    const rejected = cli.tryEstimate(req);
    assert.equal(rejected.status, 2, 'the engine rejects it');
    const { message, path: pointer } = rejected.out.error;
    assert.match(pointer, /^\/model\//, 'the pointer goes into the model');
    // The page shows the engine's message as a sentence (i18n.js sentence(): first letter raised).
    const shown = message.charAt(0).toUpperCase() + message.slice(1);
    assert.equal(await page.textContent('#cm-config-error'), `${shown} (at ${pointer})`);
    assert.equal(await page.inputValue('#cm-config'), BAD_CONFIG, 'the typed text is kept');
    assert.equal(await page.getAttribute('#cm-config', 'aria-invalid'), 'true');
    assert.deepEqual(await page.evaluate(() => window.__caliperPage.app.state.cm), before, 'the model in use is unchanged');

    // Text that is not JSON at all: where the parser stopped (line 1, column
    // 45: just past the trailing comma), its own message as the detail, text kept.
    const notJson = '{"model_type": "llama", "hidden_size": 4096,';
    await pasteConfig(page, notJson);
    const parserMessage = await page.evaluate((text) => {
      try { JSON.parse(text); } catch (e) { return e.message; }
      return null;
    }, notJson);
    assert.ok(parserMessage, 'the text is not JSON');
    assert.equal(await page.textContent('#cm-config-error'), 'Not valid JSON: check line 1, column 45.');
    assert.equal(await page.getAttribute('#cm-config-error', 'title'), parserMessage);
    assert.equal(await page.inputValue('#cm-config'), notJson);
  });

  test('My GPUs: 4 × 2080 Ti 22GB lists the models it runs, as the engine says', async () => {
    assert.ok(page, 'the page from the first test');
    await page.click('.tabs [data-view="inventory"]');
    await page.fill('#inv-gpu-0', INVENTORY.gpu);
    await page.fill('#inv-count-0', String(INVENTORY.count));
    await page.click('#inv-run');
    await page.waitForSelector('#inv-results tbody tr');
    const req = await page.evaluate(() => window.__caliperPage.requests.toInventoryRequest(window.__caliperPage.app.state));
    assert.deepEqual(req.inventory, [INVENTORY]);
    const r = cli.inventory(req);
    assert.ok((await page.textContent('#inv-results caption')).includes(`4 × ${r.gpus[0].name}`));
    const rows = await page.$$eval('#inv-results tbody tr', (trs) => trs.map((tr) => ({
      id: tr.dataset.modelId, name: tr.querySelector('th').textContent,
      tasks: [...tr.querySelectorAll('td')].slice(1).map((td) => td.className),
    })));
    assert.deepEqual(rows.map((x) => x.id).sort(), r.rows.map((x) => x.model_id).sort(), 'the engine\'s models');
    // The models these cards run for the page's task (inference here) first,
    // then the others; each part in the matrix's landing order: each family
    // in one run, families by their newest release (the catalog's
    // release_date), newest first; the page's own model has none, so last.
    const byEngine = new Map(r.rows.map((x) => [x.model_id, x]));
    const fits = rows.map((x) => byEngine.get(x.id).tasks.inference.fits);
    const split = fits.indexOf(false) < 0 ? fits.length : fits.indexOf(false);
    assert.ok(split > 0 && fits.slice(split).every((f) => !f), 'the models that run come first, then those that do not');
    assert.ok((await page.textContent('#inv-order')).startsWith(`First the ${split} models with ✓ under “Inference”`));
    const catalog = new Map(cli.listModels().map((m) => [m.id, m]));
    for (const part of [rows.slice(0, split), rows.slice(split)]) {
      const newest = new Map();
      for (const m of part.map((x) => catalog.get(x.id)).filter(Boolean)) {
        if (m.release_date && !(newest.get(m.family) >= m.release_date)) newest.set(m.family, m.release_date);
      }
      const families = part.map((x) => (catalog.get(x.id) || {}).family || x.id);
      const runs = families.filter((f, i) => i === 0 || f !== families[i - 1]);
      assert.equal(new Set(runs).size, runs.length, 'each family in one run');
      const dates = runs.map((f) => newest.get(f) || '');
      assert.deepEqual(dates, dates.slice().sort((a, b) => (a && b ? b.localeCompare(a) : a ? -1 : b ? 1 : 0)), 'newest families first');
    }
    // What a 7-14B reader owns these cards for is on the first screen of
    // rows, not below the newest models they cannot hold.
    const small = rows.findIndex((x) => { const m = catalog.get(x.id); return m && m.params_b >= 7 && m.params_b <= 14; });
    assert.ok(small >= 0 && small < 15, `a 7-14B model within the first rows (row ${small + 1})`);
    const byId = new Map(r.rows.map((x) => [x.model_id, x]));
    rows.forEach((row) => {
      const engineRow = byId.get(row.id);
      assert.equal(row.name, engineRow.model_name);
      INVENTORY_TASKS.forEach((task, k) => {
        const result = engineRow.tasks[task];
        // 'current' marks the column of the page's task (the Task select).
        assert.equal(row.tasks[k].replace(/ current$/, ''), result.fits ? 'yes' : 'no', `${row.id} ${task}`);
      });
    });
    assert.ok(r.rows.some((x) => x.tasks.inference.fits), 'some model runs on these cards');
    assert.match((await h.pageState(page)).hash, /inv=4\*2080/, 'the inventory is in the URL');
    await page.close();
  });

  test('what the engine assumed to read a pasted config stands beside its name in the row and the detail title', async () => {
    cli.requireCli();
    const own = await h.openPage(env.context, env.url('q=Llama 3.1'));
    await own.click('.tabs [data-view="custom"]');
    await own.fill('#cm-name', 'My GLM MoE');
    await own.fill('#cm-config', UNKNOWN_MOE);
    await own.click('#custom-model button[type="submit"]');
    await own.waitForFunction(() => window.__caliperPage.app.state.cm !== null);
    const cm = await own.evaluate(() => window.__caliperPage.app.state.cm);
    // The engine reads the unknown family's expert keys as a mixture of experts
    // and says so in a top-level warning (hf_config.cpp, unknown_model_type).
    const engineWarning = cli.estimate({ model: JSON.parse(UNKNOWN_MOE), gpu: 'h100' }).warnings
      .find((w) => w.code === 'unknown_model_type');
    assert.ok(engineWarning && engineWarning.message.includes('mixture of experts'), 'the engine reads it as MoE');
    assert.deepEqual(cm.warn, [{ code: 'unknown_model_type', message: engineWarning.message }]);

    await own.click('.tabs [data-view="matrix"]');
    const th = '#matrix tr[data-model-id="custom-model"] th';
    await own.waitForSelector(th);
    assert.equal(await own.textContent(th), 'My GLM MoE \u26a0', 'the user\'s name, marked');
    assert.ok((await own.getAttribute(th, 'title')).includes(engineWarning.message), 'the assumption on the name');

    await own.click('#matrix td.c[data-model-id="custom-model"]');
    await own.waitForSelector('#detail[open]');
    assert.ok((await own.textContent('#detail-title')).startsWith('My GLM MoE \u26a0'), 'the detail title keeps the user\'s name');
    assert.ok((await own.getAttribute('#detail-title', 'title')).includes('mixture of experts'));
    await own.close();
  });
});
