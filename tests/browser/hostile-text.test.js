// Markup in names is text: a model or GPU name holding <img onerror> or
// <script>, arriving by a pasted config, a pasted GPU, a loaded catalog or the
// URL, shows as the literal characters; no element is made and nothing runs.
'use strict';
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const h = require('./support/harness.js');

const IMG = '<img src=x onerror=alert(1)>';
const SCRIPT = '<script>alert(1)</script>';
const SVG = '"><svg onload=alert(1)>';
const CONFIG_NAME = SCRIPT + '<script>window.__xss=1</script>';
// The English dictionary is an ES module (web/src/i18n), loaded before the tests run.
let en;
before(async () => { ({ en } = await import('../../web/src/i18n/en.js')); });
const CONFIG = JSON.parse(fs.readFileSync(path.join(h.ROOT, 'tests/fixtures/hf_configs/mistral-7b-v0.3.json'), 'utf8'));

// What injected markup would leave behind: elements, a run script's mark.
function injected(page, baselineScripts) {
  return page.evaluate((scripts) => {
    const found = [];
    if (document.querySelectorAll('img').length) found.push('img element');
    if (document.querySelectorAll('svg[onload], [onerror], [onload]').length) found.push('event-handler attribute');
    if (document.querySelectorAll('script').length !== scripts) found.push('script element');
    if (window.__xss) found.push('script ran');
    return found;
  }, baselineScripts);
}

const scriptCount = (page) => page.evaluate(() => document.querySelectorAll('script').length);

h.forEachOrigin('hostile text', (env) => {
  let page, scripts;

  test('names from a pasted config.json and a pasted GPU show as text', async () => {
    page = await h.openPage(env.context, env.url('q=Llama 3.1'));
    scripts = await scriptCount(page);
    await page.click('.tabs [data-view="custom"]');
    await page.fill('#cm-name', IMG);
    await page.fill('#cm-config', JSON.stringify({ ...CONFIG, _name_or_path: CONFIG_NAME }));
    await page.click('#custom-model button[type="submit"]');
    await page.waitForFunction(() => window.__caliperPage.app.state.cm !== null);
    await page.fill('#cg-json', JSON.stringify({ id: 'x', name: SVG + IMG, memory_gib: 24, bandwidth_gbps: 1000, bf16_tflops: 100 }));
    await page.click('#custom-gpu button[type="submit"]');
    await page.waitForFunction(() => window.__caliperPage.app.state.cg !== null);
    assert.ok((await page.textContent('#cm-active')).includes(IMG));
    assert.ok((await page.textContent('#cg-active')).includes(SVG + IMG));

    await page.click('.tabs [data-view="matrix"]');
    await page.waitForSelector('#matrix tr[data-model-id="custom-model"]');
    assert.equal(await page.textContent('#matrix tr[data-model-id="custom-model"] th'), IMG);
    assert.equal(await page.getAttribute('#matrix th[data-gpu-id="custom-gpu"] button', 'title'), 'Sort by ' + SVG + IMG);
    await page.click('#matrix td.c[data-model-id="custom-model"][data-gpu-id="custom-gpu"]');
    await page.waitForSelector('#detail[open]');
    // The detail keeps the name the user gave (the engine would name the
    // config after its _name_or_path, CONFIG_NAME).
    const title = en['detail.title'].replace('{model}', IMG).replace('{gpu}', SVG + IMG);
    assert.equal(await page.textContent('#detail-title'), title);
    assert.deepEqual(await injected(page, scripts), []);
    await page.click('#detail-close');
    await page.click('.tabs [data-view="recommend"]');
    await page.waitForSelector('#rec-results li');
    assert.deepEqual(await injected(page, scripts), []);
  });

  test('names from a loaded catalog show as text', async () => {
    assert.ok(page, 'the page from the first test');
    const gpus = JSON.parse(fs.readFileSync(path.join(h.ROOT, 'data/gpus.json'), 'utf8'));
    const models = JSON.parse(fs.readFileSync(path.join(h.ROOT, 'data/models.json'), 'utf8'));
    const gpu = gpus.gpus[0], model = models.models.find((m) => /llama-3\.1/.test(m.id));
    assert.ok(gpu && model, 'entries to rename');
    gpu.name = IMG + SCRIPT;
    model.name = SCRIPT + IMG;
    await page.click('.tabs [data-view="custom"]');
    await page.setInputFiles('#cat-gpus', { name: 'gpus.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(gpus)) });
    await page.setInputFiles('#cat-models', { name: 'models.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(models)) });
    await page.click('#catalog-form button[type="submit"]');
    await page.waitForFunction(() => /Catalog loaded/.test(document.querySelector('#cat-message').textContent));
    await page.click('.tabs [data-view="matrix"]');
    const cell = await h.scrollToCell(page, model.id, gpu.id);
    assert.equal(await page.textContent(`#matrix tr[data-model-id="${model.id}"] th`), SCRIPT + IMG);
    assert.equal(await page.getAttribute(`#matrix th[data-gpu-id="${gpu.id}"] button`, 'title'), 'Sort by ' + IMG + SCRIPT);
    await page.click(cell);
    await page.waitForSelector('#detail[open]');
    assert.ok((await page.textContent('#detail-title')).includes(SCRIPT + IMG));
    assert.deepEqual(await injected(page, scripts), []);
    await page.close();
  });

  test('markup in the URL shows as text in every view', async () => {
    const cm = JSON.stringify({ name: IMG, params_b: 7, model: { params_b: 7, name: SCRIPT } });
    const params = new URLSearchParams({ cm, cell: `${IMG}~${SCRIPT}`, rm: SCRIPT, inv: `2*${IMG}`, sg: IMG, q: 'Llama 3.1' });
    const p = await h.openPage(env.context, env.url(params.toString()));
    const base = await scriptCount(p);
    await p.waitForSelector('#detail[open]');
    assert.equal(await p.textContent('#detail-title'), `${IMG} · ${SCRIPT}`);
    assert.equal(await p.textContent('#matrix tr[data-model-id="custom-model"] th'), IMG);
    assert.deepEqual(await injected(p, base), []);
    await p.click('#detail-close');
    for (const view of ['recommend', 'inventory', 'custom']) {
      await p.click(`.tabs [data-view="${view}"]`);
      assert.deepEqual(await injected(p, base), [], `view ${view}`);
    }
    assert.equal(await p.inputValue('#inv-gpu-0'), IMG, 'the inventory row holds the text as typed');
    // The search box, by a hash change on the open page.
    await p.click('.tabs [data-view="matrix"]');
    await p.evaluate((q) => { location.hash = new URLSearchParams({ q }).toString(); }, SVG + IMG);
    await p.waitForFunction((q) => window.__caliperPage.app.state.q === q, SVG + IMG);
    assert.equal(await p.inputValue('#f-search'), SVG + IMG);
    assert.ok((await p.textContent('#matrix caption')).length > 0);
    assert.deepEqual(await injected(p, base), []);
    await p.close();
  });
});
