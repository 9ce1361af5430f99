// The power a recommendation card and the detail show is the engine's
// power_w: the GPUs plus the host's share (docs/CONTRACT.md), so one 250 W
// card reads about 1 kW more. Its label says so, in both languages, so
// the figure does not read as the card's own board power.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');

const LABEL = { en: 'Power (GPUs + host)', zh: '功耗（显卡 + 主机）' };

h.forEachOrigin('power label', (env) => {
  for (const lang of ['en', 'zh']) {
    test(`${lang}: each recommendation card's power is the engine's GPUs-plus-host figure, labelled as such`, async () => {
      const page = await h.openPage(env.context, env.url(`view=recommend&rm=llama-3.1-8b&lang=${lang}`));
      await page.waitForSelector('#rec-results .rec-item');
      // The engine's answer for the page's own request: each option's power_w,
      // written as the page writes watts (whole watts below 10 kW).
      const want = await page.evaluate((L) => {
        const C = window.__caliperPage, s = C.app.state;
        const r = C.engine.recommend(C.requests.toRecommendRequest(s, s.rm));
        return r.options.slice(0, s.top).map((o) => ({ rank: String(o.rank), gpu: o.gpu_id,
          power: o.power_w == null ? null : new Intl.NumberFormat(L, { maximumFractionDigits: 0 }).format(o.power_w) + ' W' }));
      }, lang === 'zh' ? 'zh-CN' : 'en');
      const cards = await page.$$eval('#rec-results .rec-item', (lis) => lis.map((li) => ({
        rank: li.dataset.rank, gpu: li.dataset.gpuId,
        figs: Array.from(li.querySelectorAll('.rec-figs span')).map((x) => x.textContent) })));
      assert.ok(cards.length > 0, 'cards shown');
      for (const card of cards) {
        const w = want.find((o) => o.rank === card.rank && o.gpu === card.gpu);
        assert.ok(w, `card #${card.rank} ${card.gpu} is one of the engine's options`);
        const fig = card.figs.find((x) => x.startsWith(LABEL[lang]));
        if (w.power === null) { assert.equal(fig, undefined); continue; }
        assert.equal(fig, `${LABEL[lang]} ${w.power}`, `card #${card.rank}`);
      }
      // The bare word, which reads as the card's board power, is gone.
      assert.ok(!cards.some((c) => c.figs.some((x) => /^(Power|功耗) \d/.test(x))), 'no bare "Power"');
      await h.screenshot(page, `power-label-${lang}-${env.name}`);
      await page.close();
    });
  }
});
