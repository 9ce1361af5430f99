// Three questions people bring, asked as they would ask them: QLoRA and a
// 70B model under llama.cpp on four modded 2080 Ti 22GB; serving Qwen3-32B
// to 200 users on China-market cards; pre-training a 70B model across
// 8-GPU H100 servers. Each answer agrees between the matrix cell and the
// detail, explains its plan in the reader's language and names what it
// assumed (the fabric between servers), and lists no figure the engine
// cannot estimate.
'use strict';
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');
const cli = require('./support/cli.js');

let zh, en, codes;
before(async () => {
  ({ zh } = await import('../../web/src/i18n/zh.js'));
  ({ en } = await import('../../web/src/i18n/en.js'));
  ({ codes } = await import('../../web/src/i18n/codes.js'));
});

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

function detailRequest(page) {
  return page.evaluate(() => {
    const C = window.__caliperPage, s = C.app.state, i = s.cell.indexOf('~');
    return C.requests.toEstimateRequest(s, s.cell.slice(0, i), s.cell.slice(i + 1), s.cnt, {});
  });
}

h.forEachOrigin('practitioners', (env) => {
  test('QLoRA Qwen3 14B on a 2080 Ti 22GB: the cell shows ≈ where the detail says tight', async () => {
    cli.requireCli();
    const page = await h.openPage(env.context, env.url('task=qlora&gq=2080 Ti 22GB'));
    const cell = await h.scrollToCell(page, 'qwen3-14b', 'rtx-2080-ti-22gb');
    await page.click(cell);
    await page.waitForSelector('#detail[open] .verdict');
    // The native engine's verdict for the same request (docs/CONTRACT.md "fit").
    const r = cli.estimate(await detailRequest(page));
    assert.ok(r.fits);
    const tight = r.fit === 'tight';
    assert.equal((await page.textContent(cell)).includes('≈'), tight, 'the cell\'s symbol');
    assert.equal(await page.$eval(cell, (td) => td.classList.contains('st-tight')), tight);
    assert.equal(!!(await page.$('#detail .verdict .tight-note')), tight, 'the detail\'s tight note');
    await page.close();
  });

  test('Llama 3.3 70B in Q4_K_M on four 2080 Ti 22GB under llama.cpp: the plan\'s why in the reader\'s language', async () => {
    const hash = 'eng=llama.cpp&w=Q4_K_M&cell=llama-3.3-70b~rtx-2080-ti-22gb&cnt=4&off=layers';
    for (const [lang, texts] of [['en', en], ['zh', zh]]) {
      const page = await h.openPage(env.context, env.url(`lang=${lang}&${hash}`));
      await page.waitForSelector('#detail[open] .plan-why');
      const why = await page.textContent('#detail .plan-why');
      // The format was chosen (w=Q4_K_M): the engine says weights_requested.
      assert.ok(why.includes(codes[lang]['why.weights_requested']), `${lang}: ${why}`);
      assert.doesNotMatch(why, /Weights requested/);
      assert.ok(why.startsWith(texts['detail.why']));
      // The engine's term names are labels, not identifiers.
      await page.click('#detail-math > summary');
      const terms = await page.$$eval('#detail-math tbody th', (ths) => ths.map((th) => th.textContent));
      assert.deepEqual(terms.filter((x) => /^[a-z0-9]+(_[a-z0-9]+)+$/.test(x)), [], `${lang}: untranslated terms`);
      await page.close();
    }
  });

  test('pre-training Llama 3.1 70B on H100 servers: the detail names the fabric between them', async () => {
    cli.requireCli();
    for (const [net, name] of [['', null], ['roce-400g', 'RoCE 400G']]) {
      const page = await h.openPage(env.context, env.url(`task=pretrain&g=1024&cnt=64&cell=llama-3.1-70b~h100-sxm5-80gb${net ? '&net=' + net : ''}`));
      await page.waitForSelector('#detail[open] .verdict');
      const r = cli.estimate(await detailRequest(page));
      assert.ok(r.plan.nodes > 1, 'a plan across servers');
      const plan = await page.textContent('#detail .verdict .rec-meta');
      // plan.inter_node (docs/CONTRACT.md): the fabric asked for, shown by
      // its control label, or the class default by the engine's own name.
      assert.ok(r.plan.inter_node && r.plan.inter_node.name, JSON.stringify(r.plan));
      const fabric = name || r.plan.inter_node.name;
      assert.ok(plan.includes(en['detail.interNode'].replace('{fabric}', fabric)), plan);
      assert.ok(plan.includes(`on ${r.plan.nodes} servers`), plan);
      await page.close();
    }
  });

  test('Qwen3-32B for 200 users on China-market cards: no speeds for cards the catalog has no bandwidth for', async () => {
    const phone = await env.newContext(PHONE);
    const page = await h.openPage(phone, env.url('lang=zh&view=serve&sm=qwen3-32b&su=200&stps=20&scls=china'));
    await page.waitForSelector('#serve-table tbody tr');
    const answer = await page.evaluate(() => {
      const C = window.__caliperPage, s = C.app.state;
      return C.engine.serve(C.requests.toServeRequest(s, s.sm));
    });
    // data/gpus.json gives the MLU590 no bandwidth_gbps: no row, and the reader is told.
    assert.ok(answer.speed_unknown.includes('mlu590'));
    const rows = await page.$$eval('#serve-table tbody tr', (trs) => trs.map((tr) => tr.dataset.gpuId));
    assert.ok(!rows.includes('mlu590'), rows.join(' '));
    const warn = await page.textContent('#serve-results .warn-list li[data-code="speed_unknown"]');
    assert.ok(warn.startsWith('未列入'), warn);
    assert.ok(warn.includes('Cambricon MLU590'), warn);
    // Each row's plan cell says why the search shaped it so.
    const title = await page.getAttribute('#serve-table tbody tr td:nth-child(4)', 'title');
    assert.ok(title && title.startsWith(codes.zh['why.meets_slo']), title);
    await h.screenshot(page, `practitioners-serve-phone-zh-${env.name}`, { fullPage: true });
    await page.close();
  });

  test('the buyer\'s four cards by the names they use: A800, H20, 4090D, 910B compared, typed text kept', async () => {
    const page = await h.openPage(env.context, env.url('lang=zh&view=serve&sm=qwen3-32b&su=200&stps=20'));
    await page.waitForSelector('#serve-verdict');
    await page.fill('#sv-gpus', 'A800、H20、4090D、910B、B999');
    await page.press('#sv-gpus', 'Enter');
    await page.waitForFunction(() => location.hash.includes('sgq='));
    await page.waitForSelector('#serve-unmatched');
    assert.equal(await page.inputValue('#sv-gpus'), 'A800、H20、4090D、910B、B999', 'the typed names stay');
    assert.ok((await page.textContent('#serve-unmatched')).includes('B999'));
    // The engine's answer for exactly those cards (data/gpus.json aliases A800, H20, 4090 D, 910B).
    const answer = await page.evaluate(() => {
      const C = window.__caliperPage, s = C.app.state;
      return C.engine.serve(C.requests.toServeRequest(s, s.sm, ['a800-sxm4-80gb', 'h20-96gb', 'rtx-4090d', 'ascend-910b']));
    });
    const rows = await page.$$eval('#serve-table tbody tr', (trs) => trs.map((tr) => tr.dataset.gpuId));
    // The engine's first N, then any named card ranked below them (its best deployment).
    assert.deepEqual(rows.slice(0, answer.deployments.length), answer.deployments.map((d) => d.gpu));
    assert.ok(rows.every((id) => ['a800-sxm4-80gb', 'h20-96gb', 'rtx-4090d', 'ascend-910b'].includes(id)), rows.join(' '));
    const extra = rows.slice(answer.deployments.length);
    assert.equal(new Set(extra).size, extra.length, 'one extra row per named card at most');
    for (const id of extra) assert.ok(!answer.deployments.some((d) => d.gpu === id), `${id} is not among the first N`);
    // The named cards with no row (every deployment of theirs is looked at,
    // so none is cut by the list's length) that are not left out for want
    // of a speed (speed_unknown, named in the warnings) are named with the
    // limit that left them out.
    const unknown = answer.speed_unknown || [];
    const absent = [['a800-sxm4-80gb', 'NVIDIA A800 SXM4 80GB'], ['h20-96gb', 'NVIDIA H20 96GB'], ['rtx-4090d', 'NVIDIA GeForce RTX 4090 D'],
      ['ascend-910b', 'Huawei Ascend 910B']].filter(([id]) => !rows.includes(id) && !unknown.includes(id));
    if (absent.length) {
      const note = await page.textContent('#serve-missing');
      for (const [, name] of absent) assert.ok(note.includes(name), note);
      assert.ok(note.includes('8 张'), note);
    } else {
      assert.equal(await page.$('#serve-missing'), null);
    }
    if (unknown.includes('ascend-910b')) {
      const warn = await page.textContent('#serve-results .warn-list li[data-code="speed_unknown"]');
      assert.ok(warn.includes('Huawei Ascend 910B'), warn);
    }
    await h.screenshot(page, `practitioners-serve-compare-zh-${env.name}`, { fullPage: true });
    await page.close();
  });
});
