// The serve view (#view=serve): "N users at Y tokens/s each" in three inputs,
// the ranked deployments as the engine's serve call gives them, the
// frontier chart (SLO drawn, points read by hover and focus, exportable), in
// English and Chinese, on a desktop and a phone. With an engine that has no
// serving search the tab is hidden and the view says so.
'use strict';
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');

let zh, en;
before(async () => {
  ({ zh } = await import('../../web/src/i18n/zh.js'));
  ({ en } = await import('../../web/src/i18n/en.js'));
});

const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
const QUESTION = 'view=serve&sm=llama-3.1-8b&su=50&stps=20';

// The engine's own answer to the request the page builds from its state.
function engineAnswer(page) {
  return page.evaluate(() => {
    const C = window.__caliperPage, s = C.app.state;
    return C.engine.serve(C.requests.toServeRequest(s, s.sm || 'llama-3.1-8b'));
  });
}

function canServe(page) { return page.evaluate(() => window.__caliperPage.engine.canServe()); }

h.forEachOrigin('serve view', (env) => {
  test('N users at Y tokens/s in three inputs: the deployments as the engine ranks them', async (t) => {
    const page = await h.openPage(env.context, env.url('view=serve'));
    if (!(await canServe(page))) { await page.close(); t.skip('this engine has no serving search yet'); return; }
    await page.selectOption('#sv-model', 'llama-3.1-8b');
    await page.fill('#sv-users', '50');
    await page.press('#sv-users', 'Tab');
    await page.fill('#sv-tps', '20');
    await page.press('#sv-tps', 'Tab');
    await page.waitForFunction(() => window.__caliperPage.app.state.stps === 20 && window.__caliperPage.app.state.su === 50);
    assert.match((await h.pageState(page)).hash, /sm=llama-3\.1-8b/);
    const answer = await engineAnswer(page);
    const gpus = await page.evaluate(() => window.__caliperPage.app.gpus);
    const rows = await page.$$eval('#serve-table tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    assert.equal(rows.length, answer.deployments.length);
    answer.deployments.forEach((d, i) => {
      // A GeForce card (NVIDIA, consumer class) carries the licence mark.
      const g = gpus.find((x) => x.id === d.gpu);
      assert.equal(rows[i][1], d.gpu_name + (g.vendor === 'nvidia' && g.class === 'consumer' ? ' †' : ''), `row ${i + 1}: GPU`);
      assert.ok(rows[i][2].startsWith(String(d.gpu_count)), `row ${i + 1}: count ${rows[i][2]}`);
      // ≈: meets by the estimate, not across its 80% band (slo_margin "tight").
      assert.equal(rows[i][10], d.meets_slo ? (d.slo_margin === 'tight' ? '≈' : '✓') : '✗');
    });
    assert.ok((await page.textContent('#serve-verdict')).includes(answer.deployments[0].gpu_name));
    await h.screenshot(page, `serve-en-desktop-${env.name}`, { fullPage: true });
    await page.close();
  });

  test('prefill and decode split on request: the URL keeps the choice, split rows read as their two sides', async (t) => {
    // Llama-3.1-70B for 1,000 users at 4,096 + 512 tokens within 1 s and 30 ms:
    // split deployments take fewer GPUs (tests/unit/serving, DistServe's case).
    const q = 'view=serve&sm=llama-3.1-70b&su=1000&sttft=1&stpot=30&spi=4096&spo=512&g=256&scls=datacenter';
    const page = await h.openPage(env.context, env.url(q));
    if (!(await canServe(page))) { await page.close(); t.skip('this engine has no serving search yet'); return; }
    await page.selectOption('#sv-dis', 'yes');
    await page.waitForFunction(() => window.__caliperPage.app.state.sdis === 'yes');
    assert.match((await h.pageState(page)).hash, /sdis=yes/);
    const answer = await engineAnswer(page);
    assert.ok(answer.deployments.length > 0 && answer.deployments.every((d) => d.disaggregated));
    await page.waitForFunction((n) => document.querySelectorAll('#serve-table tbody tr').length === n, answer.deployments.length);
    const plans = await page.$$eval('#serve-table tbody tr', (trs) => trs.map((tr) => tr.children[3].textContent));
    answer.deployments.forEach((d, i) => {
      const x = d.disaggregated;
      const gpus = (n) => `${n} ${n === 1 ? 'GPU' : 'GPUs'}`;
      assert.ok(plans[i].startsWith(`prefill ${x.prefill_replicas} × ${gpus(x.prefill_gpus_per_replica)} + decode ` +
        `${x.decode_replicas} × ${gpus(x.decode_gpus_per_replica)}`), plans[i]);
    });
    await page.close();
  });

  test('the frontier: one point per curve entry, the SLO line, points read by focus and hover, SVG export', async (t) => {
    const page = await h.openPage(env.context, env.url(QUESTION));
    if (!(await canServe(page))) { await page.close(); t.skip('this engine has no serving search yet'); return; }
    const answer = await engineAnswer(page);
    assert.equal(await page.$$eval('svg.frontier circle.pt', (c) => c.length), answer.curve.length);
    assert.ok(await page.$('svg.frontier g.slo line'), 'the SLO drawn as a line');
    const first = page.locator('svg.frontier circle.pt').first();
    await first.focus();
    const read = await page.textContent('#serve-readout');
    assert.notEqual(read, en['serve.readoutHint']);
    assert.ok(read.includes(String(answer.curve[0].concurrency)), read);
    await page.locator('svg.frontier circle.pt').last().hover();
    assert.notEqual(await page.textContent('#serve-readout'), read, 'hovering another point reads that one');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#serve-svg')]);
    assert.match(download.suggestedFilename(), /^caliper-frontier-.*\.svg$/);
    await page.close();
  });

  test('the GPUs to compare always show: a named card ranked below the first N gets its best deployment, at its own rank', async (t) => {
    // Llama 3.1 8B for 50 users at 20 tokens/s, "Show 5": A800 takes the
    // first places (1, 2, 4 and 8 cards), so an RTX 4090 D would be cut.
    const page = await h.openPage(env.context, env.url(QUESTION + '&top=5&sgq=A800, H20, 4090D'));
    if (!(await canServe(page))) { await page.close(); t.skip('this engine has no serving search yet'); return; }
    await page.waitForSelector('#serve-table');
    const named = ['a800-sxm4-80gb', 'h20-96gb', 'rtx-4090d'];
    // The engine's whole ranking of those cards (its largest top).
    const all = await page.evaluate((ids) => {
      const C = window.__caliperPage, s = C.app.state;
      return C.engine.serve(Object.assign(C.requests.toServeRequest(s, s.sm, ids), { top: 100 })).deployments.map((d) => d.gpu);
    }, named);
    const firstOf = (id) => all.indexOf(id);
    assert.ok(firstOf('rtx-4090d') >= 5, `the 4090 D ranks below the first five: ${all.join(' ')}`);
    const rows = await page.$$eval('#serve-table tbody tr', (trs) => trs.map((tr) => ({ gpu: tr.dataset.gpuId, rank: Number(tr.dataset.rank),
      shown: tr.firstChild.textContent, named: tr.classList.contains('named') })));
    // The first five as ranked, then each named card missing from them at its own rank.
    assert.deepEqual(rows.slice(0, 5).map((r) => r.gpu), all.slice(0, 5));
    const extra = named.filter((id) => firstOf(id) >= 5);
    assert.deepEqual(rows.slice(5).map((r) => [r.gpu, r.rank, r.shown, r.named]),
      extra.map((id) => [id, firstOf(id) + 1, String(firstOf(id) + 1), true]));
    for (const id of named) assert.ok(rows.some((r) => r.gpu === id), `${id} shown`);
    assert.equal(await page.textContent('#serve-named'), en['serve.namedNote'].replace('{n}', '5'));
    await h.screenshot(page, `serve-named-${env.name}`, { fullPage: true });
    await page.close();
  });

  test('the SLO label never covers a point or the curve: the default question on a phone in Chinese, and on a desktop', async (t) => {
    // The page's default serve question (1 × RTX 4090): its first point lies
    // on the SLO line at the top of the plot, where the label used to be.
    const phone = await env.newContext(PHONE);
    for (const [context, lang] of [[phone, 'zh'], [env.context, 'en']]) {
      const page = await h.openPage(context, env.url('view=serve&lang=' + lang));
      if (!(await canServe(page))) { await page.close(); t.skip('this engine has no serving search yet'); return; }
      await page.waitForSelector('svg.frontier text.slo-label');
      const boxes = await page.evaluate(() => {
        const box = (n) => { const b = n.getBBox(); return { x0: b.x, x1: b.x + b.width, y0: b.y, y1: b.y + b.height }; };
        const svg = document.querySelector('svg.frontier');
        const line = svg.querySelector('polyline');
        const pts = line ? line.getAttribute('points').trim().split(/\s+/).map((p) => p.split(',').map(Number)) : [];
        return { label: box(svg.querySelector('text.slo-label')), dots: [...svg.querySelectorAll('circle.pt')].map(box), pts,
          plot: box(svg.querySelector('g.slo rect')) };
      });
      const meets = (a, b) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
      const L = boxes.label;
      boxes.dots.forEach((d, i) => assert.ok(!meets(L, d), `${lang}: the SLO label ${JSON.stringify(L)} covers point ${i} ${JSON.stringify(d)}`));
      for (let i = 1; i < boxes.pts.length; i++) {
        const [ax, ay] = boxes.pts[i - 1], [bx, by] = boxes.pts[i];
        for (let k = 0; k <= 50; k++) {
          const x = ax + (bx - ax) * k / 50, y = ay + (by - ay) * k / 50;
          assert.ok(!(x > L.x0 && x < L.x1 && y > L.y0 && y < L.y1), `${lang}: the SLO label covers the curve at (${x.toFixed(0)}, ${y.toFixed(0)})`);
        }
      }
      await page.close();
    }
  });

  test('in Chinese, in yuan, on a phone: labels translated, no sideways scrolling of the page', async (t) => {
    const phone = await env.newContext(PHONE);
    const page = await h.openPage(phone, env.url(QUESTION + '&lang=zh'));
    if (!(await canServe(page))) { await page.close(); t.skip('this engine has no serving search yet'); return; }
    assert.equal(await page.textContent('label[for="sv-users"]'), zh['serve.usersLabel']);
    const head = await page.$$eval('#serve-table thead th', (th) => th.map((x) => x.textContent));
    assert.equal(head[8], zh['serve.perMonth']);
    const money = await page.$$eval('#serve-table tbody tr:first-child td', (td) => td.map((x) => x.textContent));
    assert.ok(money.some((m) => m.startsWith('¥')), `money in yuan: ${money.join(' | ')}`);
    const w = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: window.innerWidth }));
    assert.ok(w.page <= w.screen, `page ${w.page}px wide on a ${w.screen}px screen`);
    // Each deployment is a card on a phone: every figure inside the screen,
    // under its column's name, none cut off.
    const cut = await page.$$eval('#serve-table tbody td, #serve-table tbody th', (cells) => cells
      .filter((c) => c.getBoundingClientRect().right > window.innerWidth || c.getBoundingClientRect().left < 0).map((c) => c.textContent));
    assert.deepEqual(cut, [], 'no cell outside the screen');
    const labels = await page.$$eval('#serve-table tbody tr:first-child td', (td) => td.map((x) => x.dataset.label));
    assert.deepEqual(labels, head.filter((x, i) => i !== 1), 'each figure names its column');
    const verdict = await page.textContent('#serve-verdict');
    assert.ok(verdict.includes('每月 ¥') && verdict.includes('每百万输出 token ¥'), verdict);
    await h.screenshot(page, `serve-zh-phone-${env.name}`, { fullPage: true });
    // The chart's title wraps inside the chart, never cut at its edge (the
    // English one is the longer).
    for (const lang of ['zh', 'en']) {
      if (lang === 'en') await page.selectOption('#lang', 'en');
      const title = await page.$$eval('#serve-results svg.frontier text.chart-title', (ts) => ts.map((t) => ({
        right: t.getBBox().x + t.getBBox().width, width: t.ownerSVGElement.viewBox.baseVal.width })));
      assert.ok(title.length >= (lang === 'en' ? 2 : 1), `${lang}: the title's lines`);
      for (const line of title) assert.ok(line.right <= line.width, `${lang}: title line ends at ${line.right} of ${line.width}`);
    }
    await page.close();
  });

  test('an SLO no deployment meets gets the closest ones, not an error', async (t) => {
    const page = await h.openPage(env.context, env.url('view=serve&sm=llama-3.1-8b&su=5000&stps=500&sttft=0.01'));
    if (!(await canServe(page))) { await page.close(); t.skip('this engine has no serving search yet'); return; }
    const verdict = await page.textContent('#serve-verdict');
    assert.ok(verdict.startsWith(en['serve.closest'].split('{load}')[0]) || verdict === en['serve.none'], verdict);
    assert.equal(await page.$eval('#status', (s) => s.classList.contains('error')), false);
    // The verdict says it once; the engine's slo_not_met warning is not repeated under it.
    assert.equal(await page.$('#serve-results li[data-code="slo_not_met"]'), null);
    await page.close();
    // Nothing holds the model (DeepSeek-V3 on one GPU): in Chinese the page
    // says so, and nothing claims the closest ones are listed.
    const none = await h.openPage(env.context, env.url('view=serve&sm=deepseek-v3&g=1&lang=zh'));
    assert.equal(await none.textContent('#serve-verdict'), zh['serve.none']);
    assert.doesNotMatch(await none.textContent('#serve-results'), /最接近/);
    await none.close();
  });
});
