// The detail's plan knobs (docs/CONTRACT.md "Scenario"): each left on auto
// says what the planner chose, as the native engine answers the same
// request; a knob set goes into the URL and into the engine's request.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');
const cli = require('./support/cli.js');

function detailRequest(page) {
  return page.evaluate(() => {
    const C = window.__caliperPage, s = C.app.state, i = s.cell.indexOf('~');
    const apple = C.app.gpus.some((g) => g.id === s.cell.slice(i + 1) && g.vendor === 'apple');
    return C.requests.toEstimateRequest(s, s.cell.slice(0, i), s.cell.slice(i + 1), s.cnt, { apple: apple });
  });
}

async function openDetail(context, url) {
  const page = await h.openPage(context, url);
  await page.waitForSelector('#detail[open] .detail-tools');
  return page;
}

// After a knob changes: the detail rendered again for the new state.
async function afterChange(page, hashPart) {
  await page.waitForFunction((part) => location.hash.includes(part), hashPart);
  await page.waitForSelector('#detail[open] .verdict');
}

h.forEachOrigin('plan knobs', (env) => {
  test('training: GPU count, checkpointing and micro-batch show the planner\'s choice; set, they change the plan', async () => {
    cli.requireCli();
    const page = await openDetail(env.context, env.url('task=full&cell=llama-3.1-8b~rtx-4090'));
    const auto = cli.estimate(await detailRequest(page));
    // The planner's picks, from the native engine: the count, checkpointing on or off, the micro-batch.
    assert.equal(await page.textContent('#detail-count-auto'), `auto: ${auto.gpu_count}`);
    assert.equal(await page.textContent('#detail-ckpt-auto'), `auto: ${auto.plan.gradient_checkpointing ? 'on' : 'off'}`);
    assert.equal(await page.textContent('#detail-micro-batch-auto'), `auto: ${auto.plan.micro_batch}`);
    assert.equal('batch' in (await detailRequest(page)), false, 'the micro-batch left to the engine, as the CLI leaves it');
    const why = await page.textContent('#detail .plan-why');
    assert.match(why, auto.plan.gradient_checkpointing ? /checkpointing on: needed to fit/ : /checkpointing off/);

    // Any whole count (not only the sizes servers come in), and checkpointing off.
    await page.fill('#detail-count', '7');
    await page.press('#detail-count', 'Enter');
    await afterChange(page, 'cnt=7');
    await page.selectOption('#detail-ckpt', 'off');
    await afterChange(page, 'ck=off');
    // Checkpointing is the workload's: the scenario controls and the matrix follow the detail's choice.
    assert.equal(await page.$eval('#checkpointing', (s) => s.value), 'off');
    assert.equal((await h.pageState(page)).matrixRequest.gradient_checkpointing, false);
    const req = await detailRequest(page);
    assert.equal(req.gpu_count, 7);
    assert.equal(req.gradient_checkpointing, false);
    const set = cli.estimate(req);
    assert.equal(set.gpu_count, 7);
    assert.equal(set.plan.gradient_checkpointing, false);
    assert.ok((await page.textContent('#detail .verdict')).includes(`${set.fits ? 'Fits' : 'Does not fit'} on 7 ×`));
    assert.equal(await page.$('#detail-ckpt-auto'), null, 'no auto note once set');
    await h.screenshot(page, `plan-knobs-training-${env.name}`);
    await page.close();
  });

  test('training without a micro-batch: the matrix cell, its detail, the recommend card and the CLI give the engine\'s searched plan', async () => {
    cli.requireCli();
    // gpt-oss-20b LoRA on one A800 at 4,096 tokens: the engine's search picks
    // a micro-batch above 1 there (docs/CONTRACT.md "batch": "auto" is training's default).
    const model = 'gpt-oss-20b', gpu = 'a800-sxm4-80gb';
    const page = await openDetail(env.context, env.url(`task=lora&cell=${model}~${gpu}`));
    const req = await detailRequest(page);
    assert.equal('batch' in req, false, 'the page leaves the micro-batch to the engine, as the CLI does');
    const r = cli.estimate(req);
    const one = cli.estimate(Object.assign({}, req, { batch: 1 }));
    assert.ok(r.plan.micro_batch > 1 && r.train_tokens_per_s > one.train_tokens_per_s,
      `the search chose micro-batch ${r.plan.micro_batch}: ${r.train_tokens_per_s} vs ${one.train_tokens_per_s} tok/s at 1`);
    assert.equal(await page.textContent('#detail-micro-batch-auto'), `auto: ${r.plan.micro_batch}`);
    assert.ok((await page.textContent('#detail .verdict')).includes(`micro-batch ${r.plan.micro_batch}`));
    const shown = (text) => Number(/^([\d,]+)/.exec(text.trim())[1].replace(/,/g, ''));
    assert.equal(shown(await page.textContent('#detail [data-field="train_tokens_per_s"] dd')), Math.round(r.train_tokens_per_s));
    // The matrix cell: the page's figure is the CLI matrix's, and the detail's.
    await page.waitForFunction(() => window.__caliperPage.app.job && window.__caliperPage.app.job.done);
    const { matrixRequest } = await h.pageState(page);
    const want = cli.matrixCells(matrixRequest, [model], [gpu]).get(`${model}|${gpu}`);
    const got = await page.evaluate(([m, g]) => {
      const x = window.__caliperPage.app.job.matrix;
      const c = x.cells[x.models.findIndex((o) => o.id === m)][x.gpus.findIndex((o) => o.id === g)];
      return { status: c.status, train: c.train_tokens_per_s, needed: c.gpus_needed };
    }, [model, gpu]);
    assert.deepEqual(got, { status: want.status, train: want.train_tokens_per_s, needed: want.gpus_needed });
    assert.equal(Math.round(got.train), Math.round(r.train_tokens_per_s), 'the cell and the detail agree');
    // The recommendation card for the same card and count says the same.
    await page.click('#detail-close');
    await page.click('.tabs [data-view="recommend"]');
    await page.selectOption('#rec-model', model);
    const card = `#rec-results li[data-gpu-id="${gpu}"]`;
    await page.waitForSelector(card);
    assert.match(await page.textContent(card + ' h3'), new RegExp(`^${r.gpu_count} × `));
    const figs = await page.$$eval(card + ' .rec-figs span', (xs) => xs.map((x) => x.textContent));
    const train = figs.find((x) => x.startsWith('Training throughput'));
    assert.equal(shown(train.replace('Training throughput', '')), Math.round(r.train_tokens_per_s), train);
    await page.close();
  });

  test('a count typed and a select picked right after it: both kept, the detail drawn once more without error', async () => {
    const page = await openDetail(env.context, env.url('task=lora&cell=llama-3.1-70b~h100-sxm5-80gb'));
    await page.click('#detail-count');
    await page.keyboard.type('4');
    // No blur in between: the select changes while the typed text is uncommitted.
    await page.selectOption('#detail-ckpt', 'on');
    await afterChange(page, 'ck=on');
    const s = (await h.pageState(page)).state;
    assert.equal(s.cnt, 4);
    assert.equal(s.checkpointing, 'on');
    assert.equal(await page.inputValue('#detail-count'), '4');
    assert.equal(await page.$('#detail-body .status.error'), null, 'no error in the detail');
    const r = cli.estimate(await detailRequest(page));
    assert.ok((await page.textContent('#detail .verdict')).includes(` ${r.gpu_count} × `));
    await page.close();
  });

  test('a cell above the GPU limit reads ✗ in the detail as in the matrix; a higher limit counts it', async () => {
    const page = await openDetail(env.context, env.url('cell=llama-3.1-405b~h100-sxm5-80gb'));
    const { matrixRequest } = await h.pageState(page);
    const cell = cli.matrixCells(matrixRequest, ['llama-3.1-405b'], ['h100-sxm5-80gb']).get('llama-3.1-405b|h100-sxm5-80gb');
    const r = cli.estimate(await detailRequest(page));
    // Llama 3.1 405B in BF16 needs more than the default limit of 8 H100s.
    assert.ok(r.fits && r.gpu_count > 8, `the planner's count: ${r.gpu_count}`);
    assert.equal(cell.status, 'no');
    assert.match(await page.getAttribute('#detail .verdict', 'class'), /\bst-no\b/);
    assert.equal(await page.textContent('#detail .verdict .sym'), '✗');
    assert.ok((await page.textContent('#detail .over-limit')).includes('8'));
    await page.selectOption('#max-gpus', '16');
    await afterChange(page, 'g=16');
    assert.equal(await page.$('#detail .over-limit'), null);
    assert.equal(await page.textContent('#detail .verdict .sym'), `${r.gpu_count}×`);
    await page.close();
    // The side-by-side comparison says the same.
    const cmp = await h.openPage(env.context, env.url('view=recommend&rm=llama-3.1-405b&cmp=h100-sxm5-80gb'));
    await cmp.waitForSelector('#cmp-results td.over-limit');
    const text = await cmp.textContent('#cmp-results td.over-limit');
    assert.ok(text.startsWith(`✗ ${r.gpu_count} ×`) && text.endsWith('above the GPU limit of 8'), text);
    await cmp.close();
  });

  test('the fabric between servers: a workload control the detail\'s multi-node plan follows', async () => {
    const page = await openDetail(env.context, env.url('task=pretrain&g=64&cell=llama-3.1-70b~h100-sxm5-80gb'));
    const ib = cli.estimate(await detailRequest(page));
    assert.ok(ib.plan.nodes > 1, 'a multi-node plan');
    await page.selectOption('#inter-node', 'ethernet-25g');
    await afterChange(page, 'net=ethernet-25g');
    const req = await detailRequest(page);
    assert.deepEqual(req.interconnect, { inter_node: 'ethernet-25g' });
    assert.deepEqual((await h.pageState(page)).matrixRequest.interconnect, req.interconnect);
    const eth = cli.estimate(req);
    // The engine's own account of each parallel group's link ("show the math"), now over 25 Gb/s Ethernet.
    const links = (r) => r.explain.find((e) => e.term === 'train_links_gbps');
    assert.match(links(ib).formula, /InfiniBand/);
    assert.match(links(eth).formula, /Ethernet 25 Gb\/s/);
    const shown = await page.$$eval('#detail-math tbody tr', (rows) => rows.map((row) => [row.querySelector('th span').title, row.querySelector('code').textContent]));
    assert.deepEqual(shown.find((x) => x[0] === 'train_links_gbps'), ['train_links_gbps', links(eth).formula]);
    assert.ok((await page.textContent('#detail .verdict')).includes(`on ${eth.plan.nodes} servers, ${eth.plan.gpus_per_node} GPUs per server`));
    await page.close();
  });

  test('llama.cpp on a phone, in Chinese: MoE experts on the CPU and host RAM, with what auto chose', async () => {
    const phone = await env.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await openDetail(phone, env.url('lang=zh&eng=llama.cpp&cell=qwen3-30b-a3b~rtx-4090'));
    // Nothing offloaded, yet llama.cpp keeps its token embeddings in host RAM:
    // the note says what the plan uses there, not "for offload".
    const none = cli.estimate(await detailRequest(page));
    assert.equal(none.plan.offload, 'none');
    assert.ok(none.memory.cpu_offload_gib > 0);
    assert.match(await page.textContent('#detail [data-field="memory.cpu_offload_gib"]'), /^方案占用的主机内存：/);
    // The same knob serves Ollama, which runs llama.cpp: its label names both.
    assert.equal(await page.textContent('label[for="detail-offload"]'), '卸载到内存（llama.cpp、Ollama）');
    await page.selectOption('#detail-offload', 'moe-experts');
    await afterChange(page, 'off=moe-experts');
    const r = cli.estimate(await detailRequest(page));
    // llama.cpp --n-cpu-moe left to the planner: the fewest layers whose experts go to the CPU.
    assert.equal(r.plan.offload, 'moe-experts');
    assert.equal(await page.textContent('#detail-cpu-moe-auto'), `自动：${r.plan.cpu_moe_layers}`);
    const ram = r.explain.find((e) => e.term === 'host_ram_gib').value;
    assert.equal(await page.textContent('#detail-host-ram-auto'), `默认：${ram} GiB`);
    assert.ok((await page.textContent('#detail .verdict')).includes(`${r.plan.cpu_moe_layers} 层的专家在 CPU 上`));
    assert.ok((await page.textContent('#detail .plan-why')).includes('放到 CPU 的专家层取最少'));
    // Less host RAM than the experts need: left to the planner, the count grows
    // until fewer experts go to the CPU (the fewest GPUs where the split fits)...
    await page.fill('#detail-host-ram', '8');
    await page.press('#detail-host-ram', 'Enter');
    await afterChange(page, 'ram=8');
    const grown = cli.estimate(await detailRequest(page));
    assert.ok(grown.fits && grown.gpu_count > r.gpu_count, `the planner's count: ${grown.gpu_count}`);
    assert.ok(grown.plan.cpu_moe_layers < r.plan.cpu_moe_layers);
    // ...and on the one card the engine refuses, the knobs staying to put it back.
    await page.fill('#detail-count', String(r.gpu_count));
    await page.press('#detail-count', 'Enter');
    await afterChange(page, `cnt=${r.gpu_count}`);
    const small = cli.estimate(await detailRequest(page));
    assert.equal(small.gpu_count, r.gpu_count);
    assert.equal(small.fits, false, 'the experts do not fit in 8 GiB of host RAM');
    assert.ok(await page.$('#detail-host-ram'), 'the knob is still there');
    const width = await page.evaluate(() => document.querySelector('#detail').scrollWidth);
    assert.ok(width <= 390, `the detail fits the phone (${width} px)`);
    await h.screenshot(page, `plan-knobs-llamacpp-zh-phone-${env.name}`, { fullPage: false });
    await page.close();
  });

  test('ZeRO-Offload chosen by the planner is named in the plan line, in English and in Chinese', async () => {
    cli.requireCli();
    const dicts = (await import('../../web/src/i18n/i18n.js')).dictionaries();
    // Llama 3.1 8B full fine-tune on one 80 GB card: with the optimizer
    // states on the GPU it needs two (16 bytes a parameter is 120 GiB), so
    // the planner moves them to the host (docs/CONTRACT.md parallel.offload).
    for (const lang of ['en', 'zh']) {
      const page = await openDetail(env.context, env.url(`lang=${lang}&task=full&cell=llama-3.1-8b~h100-sxm5-80gb`));
      const r = cli.estimate(await detailRequest(page));
      assert.notEqual(r.plan.offload, 'none', 'the engine offloads this plan (else this test checks nothing)');
      const words = dicts[lang][`knob.offload.${r.plan.offload}`];
      assert.ok(words, `the page has ${lang} words for the offload ${r.plan.offload}`);
      const line = await page.textContent('#detail .verdict .rec-meta');
      assert.ok(line.includes(words), `${lang} plan line names the offload: ${line}`);
      assert.doesNotMatch(line, /knob\./, 'no dictionary key shown as text');
      await page.close();
    }
  });

  test('Apple: the GPU memory limit (macOS wired limit) changes the usable memory', async () => {
    const page = await openDetail(env.context, env.url('cell=llama-3.1-8b~apple-m4-10c-24gb'));
    const r = cli.estimate(await detailRequest(page));
    assert.equal(await page.textContent('#detail-wired-auto'), `default: ${r.gpu.memory_gib} GiB`);
    await page.fill('#detail-wired', '20');
    await page.press('#detail-wired', 'Enter');
    await afterChange(page, 'wl=20');
    const req = await detailRequest(page);
    assert.deepEqual(req.host, { gpu_wired_limit_gib: 20 });
    assert.equal(cli.estimate(req).gpu.memory_gib, 20);
    // Closing the detail drops the limit (it is this machine's), keeping the rest.
    await page.click('#detail-close');
    await page.waitForFunction(() => !location.hash.includes('wl='));
    await page.close();
  });
});
