// A speech model answers in its own figures (docs/CONTRACT.md "Workloads"):
// the matrix cell shows the seconds of audio transcribed per second, the
// detail and the recommendation cards its real-time factor, not tokens/s.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');
const cli = require('./support/cli.js');
const cells = require('./support/cells.js');

// The speech preset's workload: 8 concurrent streams (core/src/answers/presets.cpp).
const SPEECH = 'task=serving&ctx=448&b=8';

h.forEachOrigin('speech models in their own figures', (env) => {
  test('Whisper: cells show audio seconds per second, the detail and the cards the real-time factor', async () => {
    cli.requireCli();
    const page = await h.openPage(env.context, env.url(`q=whisper&${SPEECH}`));
    const request = (await h.pageState(page)).matrixRequest;
    const compared = await cells.compareWithEngine(page, request, false, 8);
    assert.ok(compared.some((c) => /^whisper/.test(c.model) && c.text.split('\n')[1] !== '–'), 'a Whisper cell with a figure');
    assert.match(await page.textContent('#figure-note'), /seconds of audio transcribed per second/);

    const detail = await h.openPage(env.context, env.url(`cell=whisper-large-v3~l4&${SPEECH}`));
    await detail.waitForSelector('#detail:not([hidden]) .figures');
    const r = cli.estimate(await detail.evaluate(() => {
      const C = window.__caliperPage;
      return C.requests.toEstimateRequest(C.app.state, 'whisper-large-v3', 'l4', 'auto');
    }));
    assert.equal(r.workload, 'asr');
    const rtf = await detail.textContent('#detail [data-field="asr.realtime_factor"] dd');
    // The engine's factor and its inverse (times faster than real time), rounded for display.
    assert.match(rtf, new RegExp(`^${r.asr.realtime_factor.toFixed(3)} s per s of audio, ${(1 / r.asr.realtime_factor).toFixed(1)}× faster`));
    assert.equal(await detail.$('#detail [data-field="decode_tokens_per_s"]'), null, 'no tokens/s for speech');
    await detail.close();

    const rec = await h.openPage(env.context, env.url(`view=recommend&rm=whisper-large-v3&${SPEECH}`));
    await rec.waitForSelector('#rec-results li.rec-item');
    const answer = cli.recommend(await rec.evaluate(() => {
      const C = window.__caliperPage;
      return C.requests.toRecommendRequest(C.app.state, 'whisper-large-v3');
    }));
    const first = answer.options[0];
    const card = await rec.textContent('#rec-results li.rec-item');
    assert.ok(card.includes(`Real-time factor ${first.asr.realtime_factor.toFixed(3)} s per s of audio`), card);
    await h.screenshot(rec, `whisper-recommend-${env.name}`);
    await rec.close();
    await page.close();
  });

  test('in Chinese on a phone: the Whisper card reads its real-time factor in Chinese', async () => {
    const phone = await env.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await h.openPage(phone, env.url(`lang=zh&view=recommend&rm=whisper-large-v3&${SPEECH}`));
    await page.waitForSelector('#rec-results li.rec-item');
    const card = await page.textContent('#rec-results li.rec-item');
    assert.match(card, /实时率 每秒音频需 [\d.]+ 秒，比实时快 [\d.]+ 倍/);
    assert.match(card, /转写速度 每秒处理 [\d,.]+ 秒音频/);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `no sideways page (${width} px)`);
    await h.screenshot(page, `whisper-recommend-zh-phone-${env.name}`);
    await page.close();
  });
});
