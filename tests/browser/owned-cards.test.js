// The GPUs a reader owns are all used where that is faster, and the row,
// its detail and the engine agree on how many; what the detail suggests to
// make a model fit reads in the reader's language.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');
const cli = require('./support/cli.js');

const MODEL = 'mistral-small-3.1-24b';

h.forEachOrigin('owned cards and what makes a model fit', (env) => {
  test('My GPUs: Mistral Small 24B on four 2080 Ti 22GB uses all four, as its detail does', async () => {
    cli.requireCli();
    const page = await h.openPage(env.context, env.url('view=inventory&inv=4*2080 Ti 22GB'));
    const row = `#inv-results tbody tr[data-model-id="${MODEL}"]`;
    await page.waitForSelector(row);
    const answer = cli.inventory({ ...await page.evaluate(() => window.__caliperPage.requests.toInventoryRequest(window.__caliperPage.app.state)), model: [MODEL] });
    const engine = answer.rows[0].tasks.inference;
    // Three cards hold it as a pipeline; tensor parallelism over the four is
    // faster (the estimate at four GPUs, tests/unit/answers/test_inventory.cpp).
    assert.deepEqual([engine.fits, engine.gpus_needed, engine.gpus_used], [true, 3, 4]);
    const cell = await page.textContent(`${row} td[data-label="Inference"]`);
    // The cell's speed is the engine's at four GPUs, rounded as the cell prints it.
    assert.ok(cell.startsWith(`✓ on 4 GPUs · ${Math.round(engine.decode_tokens_per_s)} tok/s`), `${cell} against ${engine.decode_tokens_per_s}`);
    await page.click(`${row} th button`);
    await page.waitForSelector('#detail[open] .figures');
    assert.equal((await h.pageState(page)).state.cnt, 4);
    const speed = await page.textContent('#detail [data-field="decode_tokens_per_s"] dd');
    assert.ok(speed.startsWith(`${engine.decode_tokens_per_s.toFixed(1)} tok/s`), `${speed} against ${engine.decode_tokens_per_s}`);
    await page.close();
  });

  test('in Chinese, what makes Llama 3.1 70B fit three RTX 4090s reads in Chinese', async () => {
    const page = await h.openPage(env.context, env.url('lang=zh&cell=llama-3.1-70b~rtx-4090&cnt=3'));
    await page.waitForSelector('#detail[open]');
    const rows = await page.$$eval('#detail table.plain tbody tr', (trs) => trs.map((tr) => [tr.querySelector('[data-code]') && tr.querySelector('[data-code]').dataset.code, tr.querySelector('code') && tr.querySelector('code').textContent]).filter((x) => x[0]));
    const engine = cli.estimate(await page.evaluate(() => {
      const C = window.__caliperPage;
      return C.requests.toEstimateRequest(C.app.state, 'llama-3.1-70b', 'rtx-4090', 3);
    }));
    const more = engine.suggestions.find((s) => s.change === 'more_gpus');
    assert.ok(more, 'the engine suggests more GPUs');
    assert.deepEqual(rows.find((r) => r[0] === 'more_gpus'), ['more_gpus', `${more.gpu_count} 张卡`]);
    const suggested = rows.filter((r) => engine.suggestions.some((x) => x.change === r[0]));
    assert.equal(suggested.length, engine.suggestions.length, 'every suggestion listed');
    for (const [code, text] of suggested) assert.doesNotMatch(text, /\b(GPUs|weights|context|batch|tokens)\b/, `${code}: ${text}`);
    await page.$eval('#detail table.plain', (t) => t.scrollIntoView());
    await h.screenshot(page, `fit-suggestions-zh-${env.name}`);
    await page.close();
  });
});
