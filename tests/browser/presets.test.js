// The scenario buttons are the engine's presets (caliper describe); each
// shows the source document's own pick, and the recommend view sets it
// beside the engine's ranking, saying where they agree or differ. The
// serving preset is sized as a service within its SLO, in the serve view.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');
const cli = require('./support/cli.js');

h.forEachOrigin('scenario presets', (env) => {
  test('the buttons are the engine\'s presets; serving: sized as a service within the preset\'s SLO, the document\'s picks beside the search\'s first', async () => {
    cli.requireCli();
    const described = cli.describe();
    const page = await h.openPage(env.context, env.url(''));
    const buttons = await page.$$eval('[data-preset]', (bs) => bs.map((b) => [b.dataset.preset, b.textContent]));
    assert.deepEqual(buttons, described.presets.map((p) => [p.id, p.label_en]));

    await page.click('[data-preset="serving"]');
    await page.waitForSelector('#preset-doc:not([hidden])');
    const serving = described.presets.find((p) => p.id === 'serving');
    const r = serving.request;
    const state = (await h.pageState(page)).state;
    // The engine's request: 64 concurrent users of 3,584 + 512 tokens within its SLO
    // (MLPerf's Llama 3.1 8B server targets, core/src/answers/presets.cpp), at most 64 GPUs.
    assert.deepEqual([state.task, state.b, state.ctx, state.obj, state.g, state.show],
      ['serving', r.batch, r.prompt_tokens + r.output_tokens, r.objective, r.max_gpus, 'users']);
    assert.deepEqual([state.sm, state.su, state.sttft, state.stpot, state.stps, state.spi, state.spo],
      [r.model, r.batch, r.slo.ttft_s, r.slo.tpot_ms, null, r.prompt_tokens, r.output_tokens]);
    assert.equal(await page.getAttribute('[data-preset="serving"]', 'aria-pressed'), 'true');
    assert.ok((await page.textContent('#preset-doc-text')).includes(serving.document_picks));

    await page.click('#preset-doc-compare');
    await page.waitForSelector('#serve-preset .preset-verdict');
    assert.equal((await h.pageState(page)).state.view, 'serve');
    // The engine's answer for the same request: recommend with the preset runs serve's search.
    const answer = cli.recommend(await page.evaluate(() => {
      const C = window.__caliperPage;
      return Object.assign(C.requests.toServeRequest(C.app.state, C.app.state.sm, []), { preset: 'serving' });
    }));
    assert.equal(answer.objective, 'slo');
    const picks = await page.$$eval('#serve-preset li', (items) => items.map((i) => [i.dataset.gpuId, i.dataset.meets]));
    assert.deepEqual(picks, answer.preset.document_pick_deployments.map((d) => [d.gpu, String(d.meets_slo)]));
    assert.ok(picks.length > 0, 'the document picks that hold the model are listed');
    const best = answer.deployments[0];
    const agree = answer.preset.document_pick_gpus.includes(best.gpu);
    assert.equal(await page.getAttribute('#serve-preset .preset-verdict', 'data-agree'), String(agree));
    assert.match(await page.textContent('#serve-preset .preset-verdict'), agree ? /^They agree/ : /^They differ/);
    // The first row is the search's first deployment, with its tokens/s per user.
    assert.equal(await page.getAttribute('#serve-table tbody tr', 'data-gpu-id'), best.gpu);
    await h.screenshot(page, `presets-serving-serve-${env.name}`);
    await page.close();
  });

  test('serving: a service runs in a data centre, so no GeForce card is ranked unless asked for, and then each is marked', async () => {
    cli.requireCli();
    const gpus = cli.listGpus();
    const geforce = (id) => gpus.some((g) => g.id === id && g.vendor === 'nvidia' && g.class === 'consumer');
    for (const [lang, note] of [['en', /GeForce driver licence/], ['zh', /GeForce 驱动许可/]]) {
      const page = await h.openPage(env.context, env.url(`lang=${lang}`));
      await page.click('[data-preset="serving"]');
      await page.click('#preset-doc-compare');
      await page.waitForSelector('#serve-table');
      // The engine's answer for the page's request (the preset fills in its GPU classes).
      const request = await page.evaluate(() => {
        const C = window.__caliperPage;
        return Object.assign(C.requests.toServeRequest(C.app.state, C.app.state.sm, []), { preset: 'serving' });
      });
      const answer = cli.recommend(request);
      const rows = await page.$$eval('#serve-table tbody tr', (trs) => trs.map((tr) => tr.dataset.gpuId));
      assert.deepEqual(rows, answer.deployments.slice(0, rows.length).map((d) => d.gpu));
      assert.deepEqual(rows.filter(geforce), [], `${lang}: no GeForce card in the serving scenario`);
      assert.match(await page.textContent('#serve-classes'), note, `${lang}: the page says why`);
      // Consumer cards asked for: ranked, each GeForce row marked and the licence named once.
      await page.selectOption('#sv-class', 'consumer');
      await page.waitForFunction(() => {
        const tr = document.querySelector('#serve-table tbody tr');
        return tr && !document.querySelector('#serve-classes') && document.querySelector('#serve-geforce');
      });
      const marked = await page.$$eval('#serve-table tbody tr', (trs) => trs.map((tr) => [tr.dataset.gpuId, tr.querySelector('th').textContent.endsWith(' †')]));
      assert.ok(marked.some(([id]) => geforce(id)), `${lang}: GeForce cards ranked once asked for`);
      for (const [id, dagger] of marked) assert.equal(dagger, geforce(id), `${lang}: ${id} marked as GeForce`);
      assert.match(await page.textContent('#serve-geforce'), note);
      await h.screenshot(page, `presets-serving-geforce-${lang}-${env.name}`);
      await page.close();
    }
  });

  test('large-model SFT: a multi-GPU option\'s link reason names the GPU\'s own link (a bridge, Infinity Fabric on AMD), in both languages', async () => {
    cli.requireCli();
    const gpus = cli.listGpus();
    // The LoRA preset's cheapest plans became one GPU with ZeRO-Infinity, so the large-model
    // SFT preset is where 2-8 GPUs of one server, joined by their link, are offered.
    for (const [lang, verb, bridge] of [['en', ' joins all ', 'bridge'], ['zh', ' 连接全部 ', '桥接器']]) {
      const page = await h.openPage(env.context, env.url(`lang=${lang}`));
      await page.click('[data-preset="sft"]');
      await page.click('#preset-doc-compare');
      await page.waitForSelector('#rec-results .rec-item');
      const links = await page.$$eval('#rec-results .rec-item', (items) => items.map((li) => {
        const r = li.querySelector('li[data-code="nvlink"]');
        return r ? [li.dataset.gpuId, r.textContent] : null;
      }).filter(Boolean));
      assert.ok(links.length > 0, `${lang}: some option is joined by its GPUs' link`);
      for (const [id, text] of links) {
        const g = gpus.find((x) => x.id === id);
        // The page writes the catalog's link name, its word "bridge" in the page's language.
        const link = (g.nvlink_version || 'NVLink').replace(/\bbridge\b/, bridge);
        assert.ok(text.startsWith(link + verb), `${lang}: ${id}: ${text}`);
      }
      await page.close();
    }
  });

  test('the note above the matrix names Caliper\'s own pick beside the documents\', and whether they agree (en and zh)', async () => {
    cli.requireCli();
    const described = cli.describe();
    // Caliper's pick is the first of the engine's answer that Compare opens:
    // the serve search's first deployment for the preset with an SLO,
    // recommend's #1 otherwise (recommend with the preset, the page's request).
    const expected = async (page, p) => {
      if (p.request.slo) {
        const a = cli.recommend(await page.evaluate((id) => {
          const C = window.__caliperPage;
          return Object.assign(C.requests.toServeRequest(C.app.state, C.app.state.sm, []), { preset: id });
        }, p.id));
        const d = a.deployments[0];
        return { gpu: d.gpu, n: d.gpu_count, name: d.gpu_name, agree: d.meets_slo && p.document_pick_gpus.includes(d.gpu) };
      }
      const a = cli.recommend(await page.evaluate((id) => {
        const C = window.__caliperPage;
        return C.requests.toRecommendRequest(C.app.state, undefined, id);
      }, p.id));
      const o = a.options.slice().sort((x, y) => x.rank - y.rank)[0];
      return { gpu: o.gpu_id, n: o.gpu_count, name: o.gpu_name, agree: p.document_pick_gpus.includes(o.gpu_id) };
    };
    const page = await h.openPage(env.context, env.url('lang=en'));
    for (const p of described.presets) {
      await page.click(`[data-preset="${p.id}"]`);
      await page.waitForSelector(`#preset-doc-caliper[data-preset="${p.id}"]`);
      const want = await expected(page, p);
      assert.equal(await page.getAttribute('#preset-doc-caliper', 'data-gpu-id'), want.gpu, `${p.id}: Caliper's first`);
      assert.equal(await page.getAttribute('#preset-doc-caliper', 'data-agree'), String(want.agree), `${p.id}: agreement`);
      const text = await page.textContent('#preset-doc-caliper');
      assert.ok(text.includes(`${want.n} × ${want.name}`), `${p.id}: ${text}`);
      assert.match(text, want.agree ? /They agree/ : /They differ/, p.id);
      assert.ok((await page.textContent('#preset-doc-text')).includes(p.document_picks), `${p.id}: the documents' pick stays`);
      if (p.id === 'lora') await h.screenshot(page, `presets-matrix-pick-lora-en-${env.name}`);
    }
    // The pick is the recommend view's #1 (the view Compare opens).
    await page.click('[data-preset="lora"]');
    await page.waitForSelector('#preset-doc-caliper[data-preset="lora"]');
    const pick = await page.getAttribute('#preset-doc-caliper', 'data-gpu-id');
    await page.click('#preset-doc-compare');
    await page.waitForSelector('#rec-results .rec-item');
    assert.equal(await page.getAttribute('#rec-results .rec-item', 'data-gpu-id'), pick);
    await page.close();

    const zh = await h.openPage(env.context, env.url('lang=zh'));
    for (const id of ['lora', 'serving']) {
      const p = described.presets.find((x) => x.id === id);
      await zh.click(`[data-preset="${id}"]`);
      await zh.waitForSelector(`#preset-doc-caliper[data-preset="${id}"]`);
      const want = await expected(zh, p);
      const text = await zh.textContent('#preset-doc-caliper');
      assert.ok(text.includes(`${want.n} × ${want.name}`), `zh ${id}: ${text}`);
      assert.match(text, want.agree ? /两者一致/ : /两者不同/, `zh ${id}`);
      assert.doesNotMatch(text, /They |pick/, `zh ${id}: no English left`);
      assert.doesNotMatch(await zh.textContent('#preset-doc'), /。 /, `zh ${id}: no space after a Chinese full stop`);
      await h.screenshot(zh, `presets-matrix-pick-${id}-zh-${env.name}`);
    }
    await zh.close();
  });

  test('serving: the matrix holds the cards the serving ranking does (its GPU classes), said above it and lifted on request', async () => {
    cli.requireCli();
    const serving = cli.describe().presets.find((p) => p.id === 'serving');
    const classes = serving.request.gpu_filter.classes;
    const gpus = cli.listGpus();
    // The engine's serving preset ranks data-centre and workstation cards
    // (core/src/answers/presets.cpp): the China market's RTX 4090D is a
    // consumer card, its H20 a data-centre one.
    const classOf = (id) => gpus.find((g) => g.id === id).class;
    assert.equal(classOf('rtx-4090d'), 'consumer');
    assert.equal(classOf('h20-96gb'), 'datacenter');
    for (const [lang, note] of [['en', /GeForce driver licence/], ['zh', /GeForce 驱动许可/]]) {
      const page = await h.openPage(env.context, env.url(`lang=${lang}`));
      await page.click('[data-preset="serving"]');
      await page.waitForSelector('#class-note:not([hidden])');
      await h.waitRowsBuilt(page);
      assert.match(await page.textContent('#class-note-text'), note);
      const columns = async () => cli.matrix(await page.evaluate(() => {
        const C = window.__caliperPage;
        return Object.assign(C.requests.toMatrixRequest(C.app.state, null), { model: [] });
      })).gpus.map((g) => g.id);
      const shown = await columns();
      assert.deepEqual(shown.slice().sort(), gpus.filter((g) => classes.includes(g.class)).map((g) => g.id).sort(),
        `${lang}: the matrix's GPUs are the catalog's cards of the preset's classes`);
      assert.ok(!shown.includes('rtx-4090d') && shown.includes('h20-96gb'), `${lang}: China's data-centre cards stay, its GeForce cards go`);
      const count = () => page.$eval('#matrix', (t) => Number(t.getAttribute('aria-colcount')));
      assert.equal(await count(), 2 + shown.length, `${lang}: one column per GPU`);
      const heads = await page.$$eval('#matrix thead th[data-gpu-id]', (ths) => ths.map((th) => th.dataset.gpuId));
      assert.ok(heads.length > 0 && heads.every((id) => classes.includes(classOf(id))), `${lang}: every header in view is of the preset's classes`);
      await h.screenshot(page, `presets-serving-matrix-classes-${lang}-${env.name}`);
      // Lifted: every class again, the note gone.
      await page.click('#class-note-clear');
      await page.waitForSelector('#class-note', { state: 'hidden' });
      const all = await columns();
      assert.ok(all.includes('rtx-4090d'), `${lang}: GeForce cards back once asked for`);
      await page.waitForFunction((n) => Number(document.querySelector('#matrix').getAttribute('aria-colcount')) === n, 2 + all.length);
      await page.close();
    }
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
