// The scenario buttons are the engine's presets (caliper describe); each
// shows the source document's own pick, and the recommend view sets it
// beside the engine's ranking, saying where they agree or differ. Serving
// options carry tokens/s per user and a month's price.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');
const cli = require('./support/cli.js');

function recommendRequest(page, preset) {
  return page.evaluate((p) => {
    const C = window.__caliperPage;
    return C.requests.toRecommendRequest(C.app.state, undefined, p);
  }, preset);
}

h.forEachOrigin('scenario presets', (env) => {
  test('the buttons are the engine\'s presets; serving: the document\'s pick beside Caliper\'s ranking, with serving figures', async () => {
    cli.requireCli();
    const described = cli.describe();
    const page = await h.openPage(env.context, env.url(''));
    const buttons = await page.$$eval('[data-preset]', (bs) => bs.map((b) => [b.dataset.preset, b.textContent]));
    assert.deepEqual(buttons, described.presets.map((p) => [p.id, p.label_en]));

    await page.click('[data-preset="serving"]');
    await page.waitForSelector('#preset-doc:not([hidden])');
    const serving = described.presets.find((p) => p.id === 'serving');
    const state = (await h.pageState(page)).state;
    // The engine's request: 64 concurrent requests of 3,584 + 512 tokens, cost per token, at most 64 GPUs.
    assert.deepEqual([state.task, state.b, state.ctx, state.obj, state.g],
      ['serving', serving.request.batch, serving.request.prompt_tokens + serving.request.output_tokens, serving.request.objective, serving.request.max_gpus]);
    assert.equal(await page.getAttribute('[data-preset="serving"]', 'aria-pressed'), 'true');
    assert.ok((await page.textContent('#preset-doc-text')).includes(serving.document_picks));

    await page.click('#preset-doc-compare');
    await page.waitForSelector('#rec-preset:not([hidden]) li');
    const r = cli.recommend(await recommendRequest(page, 'serving'));
    // Every document pick the engine ranks, with its rank; the rest with why not.
    const picks = await page.$$eval('#rec-preset li', (items) => items.map((i) => [i.dataset.gpuId, i.dataset.rank || null]));
    const want = r.preset.document_pick_gpus.map((id) => {
      const o = r.options.find((x) => x.gpu_id === id);
      const ex = r.excluded.find((x) => x.gpu_id === id);
      return o ? [id, String(o.rank)] : ex ? [id, null] : undefined;
    }).filter(Boolean);
    assert.deepEqual(picks, want);
    const agree = r.options.some((o) => o.rank === 1 && r.preset.document_pick_gpus.includes(o.gpu_id));
    assert.equal(await page.getAttribute('#rec-preset .preset-verdict', 'data-agree'), String(agree));
    assert.match(await page.textContent('#rec-preset .preset-verdict'), agree ? /^They agree/ : /^They differ/);

    // Card #1: tokens/s per user and the month, as the engine's option has them.
    const first = r.options.find((o) => o.rank === 1);
    const card = await page.textContent('#rec-results li.rec-item[data-rank="1"]');
    assert.ok(first.user_tokens_per_s > 0 && first.usd_per_month > 0);
    assert.match(card, /Per user [\d.,]+ tok\/s/);
    assert.match(card, /Per month \(cloud\) \$[\d.,]+/);
    const perUser = Number(card.match(/Per user ([\d.,]+)/)[1].replace(/,/g, ''));
    assert.ok(Math.abs(perUser - first.user_tokens_per_s) <= Math.max(0.05, first.user_tokens_per_s * 0.01), `${perUser} vs ${first.user_tokens_per_s}`);
    await h.screenshot(page, `presets-serving-recommend-${env.name}`);
    await page.close();
  });

  test('in Chinese on a phone: the buttons in Chinese, LoRA\'s pick and the verdict', async () => {
    const described = cli.describe();
    const phone = await env.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await h.openPage(phone, env.url('lang=zh'));
    const labels = await page.$$eval('[data-preset]', (bs) => bs.map((b) => b.textContent));
    assert.deepEqual(labels, described.presets.map((p) => p.label_zh));
    await page.click('[data-preset="lora"]');
    await page.waitForSelector('#preset-doc:not([hidden])');
    assert.match(await page.textContent('#preset-doc-text'), /^原文在这一场景推荐 L40S \/ A100 40G：/);
    await page.click('#preset-doc-compare');
    await page.waitForSelector('#rec-preset:not([hidden]) .preset-verdict');
    assert.match(await page.textContent('#rec-preset .preset-verdict'), /^两者(一致|不同)：/);
    assert.doesNotMatch(await page.textContent('#rec-preset ul'), /not ranked|needs more/, 'no English left');
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page fits the phone (${width} px)`);
    await h.screenshot(page, `presets-lora-zh-phone-${env.name}`);
    await page.close();
  });
});
