// State ↔ URL and the requests built from the state (web/src/state/url-codec.js).
import test from 'node:test';
import assert from 'node:assert/strict';
import * as defaults from '../../web/src/state/defaults.js';
import * as codec from '../../web/src/state/url-codec.js';
import * as requests from '../../web/src/state/requests.js';
import * as search from '../../web/src/state/search.js';

// The state's three parts under one name, as the tests read them.
const S = Object.assign({}, defaults, codec, requests, search);

test('defaults round-trip to an empty hash', () => {
  assert.equal(S.serialize(S.defaults()), '');
  assert.deepEqual(S.parse('', ''), S.defaults());
});

test('every changed key survives serialize → parse', () => {
  const s = S.defaults();
  Object.assign(s, {
    view: 'recommend', lang: 'zh', cur: 'cny', embed: true, task: 'qlora', w: 'nf4', ctx: 8192, b: 4, g: 64,
    eng: 'transformers', show: 'cost', tt: 2e9, q: 'qwen 7b', gq: '4090', fam: ['Llama 3.1', 'Qwen2.5'],
    pmin: 6.5, pmax: 14, cls: ['consumer', 'china'], mem: 24, price: 2000, sort: 'gpu', dir: 'desc',
    sg: 'rtx-4090', cell: 'llama-3.1-8b~rtx-4090', cnt: 2, rm: 'qwen2.5-72b', obj: 'fastest', pr: 'purchase', top: 5,
    cmp: ['h100-sxm5-80gb', '-', 'a800-sxm4-80gb'], inv: [{ gpu: '2080 Ti 22GB', count: 4 }, { gpu: 'A800', count: 2 }],
    cm: { name: 'Mine', params_b: 7, model: { params_b: 7 } }, cg: { name: 'Card', gpu: { memory_gib: 48 } },
    sm: 'qwen2.5-72b', su: 200, sr: 3.5, sttft: 1.5, stpot: 40, stps: 25, spi: 1024, spo: 256, scls: ['datacenter'], sdis: 'auto', sgq: 'A800, H20',
    interNode: 'ethernet-25g', gpusPerNode: 4, checkpointing: 'off', offload: 'moe-experts', gpuLayers: 20, cpuMoeLayers: 12, hostRamGib: 128, wiredLimitGib: 40
  });
  const hash = S.serialize(s);
  assert.deepEqual(S.parse('', '#' + hash), s);
  // Long state names travel under their short URL keys, which the state never sees.
  assert.match(hash, /(^|&)net=ethernet-25g&gpn=4&ck=off&off=moe-experts&ngl=20&ncm=12&ram=128&wl=40(&|$)/);
  assert.ok(!/checkpointing|hostRamGib/.test(hash));
  assert.equal(S.parse('', '#checkpointing=on&hostRamGib=8').checkpointing, 'auto', 'a long name is not a URL key');
});

test('the detail\'s plan knobs go into the estimate request; left on auto they stay out (docs/CONTRACT.md)', () => {
  const base = S.toEstimateRequest(S.defaults(), 'm', 'g', 'auto');
  for (const key of ['gradient_checkpointing', 'parallel', 'host']) assert.ok(!(key in base), key);
  const train = Object.assign(S.defaults(), { task: 'full', checkpointing: 'off', offload: 'layers', hostRamGib: 256 });
  const t = S.toEstimateRequest(train, 'm', 'g', 7);
  assert.equal(t.gradient_checkpointing, false);
  // Checkpointing is the workload's: the matrix and recommend ask the same.
  assert.equal(S.toMatrixRequest(train, null).gradient_checkpointing, false);
  assert.equal(S.toRecommendRequest(train, 'm').gradient_checkpointing, false);
  // The fabric between servers is the workload's too; left on auto it stays out.
  assert.ok(!('interconnect' in S.toMatrixRequest(train, null)));
  const net = Object.assign(S.defaults(), { task: 'pretrain', interNode: 'roce-400g', gpusPerNode: 4 });
  assert.deepEqual(S.toMatrixRequest(net, null).interconnect, { inter_node: 'roce-400g', gpus_per_node: 4 });
  assert.deepEqual(S.toEstimateRequest(net, 'm', 'g', 'auto').interconnect, { inter_node: 'roce-400g', gpus_per_node: 4 });
  assert.equal(t.gpu_count, 7, 'any whole count');
  assert.ok(!('parallel' in t), 'llama.cpp offload is an inference knob');
  assert.deepEqual(t.host, { ram_gib: 256 });
  const infer = Object.assign(S.defaults(), { eng: 'llama.cpp', offload: 'moe-experts', cpuMoeLayers: 30, gpuLayers: 5,
    checkpointing: 'on', wiredLimitGib: 40 });
  const i = S.toEstimateRequest(infer, 'm', 'g', 'auto');
  assert.deepEqual(i.parallel, { offload: 'moe-experts', cpu_moe_layers: 30 }, 'only the count of the chosen offload');
  assert.ok(!('gradient_checkpointing' in i) && !('host' in i), 'no training knob; the wired limit only on Apple');
  assert.deepEqual(S.toEstimateRequest(infer, 'm', 'g', 'auto', { apple: true }).host, { gpu_wired_limit_gib: 40 });
  assert.equal(S.controlForPath('/parallel/cpu_moe_layers'), 'detail-cpu-moe');
  assert.equal(S.controlForPath('/host/gpu_wired_limit_gib'), 'detail-wired');
});

test('the hash wins over the query string', () => {
  const s = S.parse('?lang=zh&task=lora', '#lang=en');
  assert.equal(s.lang, 'en');
  assert.equal(s.task, 'lora');
});

test('invalid values fall back to defaults instead of breaking the page', () => {
  const s = S.parse('', '#task=dance&ctx=-5&g=99999&cls=consumer|alien&cm={not json&top=0');
  assert.equal(s.task, 'inference');
  assert.equal(s.ctx, 4096);
  assert.equal(s.g, 8);
  assert.deepEqual(s.cls, ['consumer']);
  assert.equal(s.cm, null);
  assert.equal(s.top, 10);
});

test('text from the URL is kept as typed, up to 200 characters', () => {
  const s = S.parse('', '#q=' + encodeURIComponent('<img src=x onerror=alert(1)>'));
  assert.equal(s.q, '<img src=x onerror=alert(1)>');
  assert.equal(S.parse('', '#q=' + 'a'.repeat(500)).q.length, 200);
});

test('inventory text reads counts and GPU names', () => {
  assert.deepEqual(S.parseInventory('4*2080 Ti 22GB|2*A800|H100'),
    [{ gpu: '2080 Ti 22GB', count: 4 }, { gpu: 'A800', count: 2 }, { gpu: 'H100', count: 1 }]);
  assert.equal(S.inventoryText([{ gpu: 'A800', count: 2 }, { gpu: '', count: 1 }]), '2*A800');
});

test('inference splits the context into prompt and output tokens', () => {
  const s = Object.assign(S.defaults(), { ctx: 4096 });
  const req = S.toScenario(s);
  assert.equal(req.task, 'inference');
  assert.equal(req.prompt_tokens + req.output_tokens, 4096);
  assert.equal(req.output_tokens, 512);
  assert.equal(req.batch, 1);
  assert.equal(req.weights, undefined, 'auto weights are left to the engine');
  const short = S.toScenario(Object.assign(S.defaults(), { ctx: 300 }));
  assert.equal(short.prompt_tokens + short.output_tokens, 300);
});

test('page tasks map to the engine task, method and training length', () => {
  const lora = S.toScenario(Object.assign(S.defaults(), { task: 'lora', ctx: 2048 }));
  assert.deepEqual([lora.task, lora.method, lora.seq_len, lora.train_tokens], ['finetune', 'lora', 2048, 1e8]);
  assert.equal(lora.prompt_tokens, undefined);
  const pre = S.toScenario(Object.assign(S.defaults(), { task: 'pretrain', tt: 5e11 }));
  assert.deepEqual([pre.task, pre.method, pre.train_tokens], ['pretrain', undefined, 5e11]);
  const serving = S.toScenario(Object.assign(S.defaults(), { task: 'serving' }));
  assert.deepEqual([serving.task, serving.batch], ['inference', 32]);
});

test('training leaves the micro-batch to the engine unless one is set (the CLI\'s default: docs/CONTRACT.md "batch")', () => {
  for (const task of ['lora', 'qlora', 'full', 'pretrain']) {
    const req = S.toScenario(Object.assign(S.defaults(), { task }));
    assert.equal('batch' in req, false, `${task}: no batch, so the engine searches it`);
    assert.equal(S.toMatrixRequest(Object.assign(S.defaults(), { task })).batch, undefined, `${task} matrix`);
  }
  assert.equal(S.toScenario(Object.assign(S.defaults(), { task: 'lora', b: 4 })).batch, 4, 'a micro-batch set is sent');
});

test('matrix request carries the filters the engine understands', () => {
  const s = Object.assign(S.defaults(), { fam: ['Qwen2.5'], pmin: 7, cls: ['china'], mem: 40, price: 30000, q: ' qwen ', g: 16 });
  const req = S.toMatrixRequest(s);
  assert.equal(req.model, 'all');
  assert.equal(req.gpu, 'all');
  assert.equal(req.max_gpus, 16);
  assert.deepEqual(req.model_filter, { families: ['Qwen2.5'], min_params_b: 7, search: 'qwen' });
  // The page's class filter is the matrix's column groups (China-market and
  // other-vendor cards form groups of their own), the engine's "groups".
  assert.deepEqual(req.gpu_filter, { groups: ['china'], min_memory_gib: 40, max_price_usd: 30000 });
  assert.deepEqual(S.toMatrixRequest(S.defaults(), ['rtx-4090']).gpu, ['rtx-4090']);
  assert.deepEqual(S.toMatrixRequest(s, ['rtx-4090']).gpu_filter.groups, ['china'], 'a text search keeps the other filters');
  assert.equal(S.toMatrixRequest(S.defaults()).gpu_filter, undefined);
});

test('the users metric asks the matrix for users at the serve view\'s SLO', () => {
  const s = Object.assign(S.defaults(), { show: 'users', sttft: 2, stpot: null, stps: 20 });
  assert.deepEqual(S.toMatrixRequest(s).slo, { ttft_s: 2, min_user_tokens_per_s: 20 });
  assert.equal(S.toMatrixRequest(S.defaults()).slo, undefined, 'other metrics send no SLO');
  assert.equal(S.toMatrixRequest(Object.assign(s, { task: 'lora' })).slo, undefined, 'users at an SLO are an inference figure');
  assert.equal(S.toMatrixRequest(Object.assign(S.defaults(), { show: 'users', stps: null })).slo, undefined,
    'an empty SLO is not sent');
});

test('recommend and inventory requests', () => {
  const s = Object.assign(S.defaults(), { obj: 'fastest', top: 5, inv: [{ gpu: ' A800 ', count: 2 }, { gpu: ' ', count: 1 }] });
  const rec = S.toRecommendRequest(s, 'qwen2.5-72b');
  assert.deepEqual([rec.model, rec.objective, rec.top, rec.max_gpus], ['qwen2.5-72b', 'fastest', 5, 8]);
  assert.deepEqual(S.toInventoryRequest(s).inventory, [{ gpu: 'A800', count: 2 }]);
  assert.equal(S.toEstimateRequest(s, 'm', 'g').gpu_count, 'auto');
});

test('engine error paths point at the control holding the value', () => {
  assert.equal(S.controlForPath('/weights'), 'weights');
  assert.equal(S.controlForPath('/seq_len'), 'context');
  assert.equal(S.controlForPath('/gpu_filter/min_memory_gib'), 'f-mem');
  assert.equal(S.controlForPath('/model'), null);
});

test('text matching ignores case, spaces and punctuation', () => {
  assert.ok(S.matchesText(['NVIDIA GeForce RTX 4090'], 'rtx4090'));
  assert.ok(S.matchesText(['A800-SXM4-80GB'], 'a800 sxm'));
  assert.ok(!S.matchesText(['H100'], 'h200'));
});

test('the currency follows the language unless the reader chose one, and the URL keeps only a choice', () => {
  const s = S.defaults();
  assert.equal(S.currencyOf(s, 'zh'), 'cny');
  assert.equal(S.currencyOf(s, 'en'), 'usd');
  assert.equal(S.serialize(s), '', 'the default currency is not written');
  const chosen = S.parse('', '#cur=usd&lang=zh');
  assert.equal(S.currencyOf(chosen, 'zh'), 'usd', 'an explicit choice wins over the language');
  assert.match(S.serialize(chosen), /cur=usd/);
});

test('the serve request: users or a rate, the SLO, lengths, GPU classes (docs/CONTRACT.md "Serve")', () => {
  const s = Object.assign(S.defaults(), { su: 50, stps: 20, sttft: 2, scls: ['datacenter'] });
  const req = S.toServeRequest(s, 'qwen2.5-72b');
  assert.deepEqual(req, { model: 'qwen2.5-72b', users: 50, slo: { ttft_s: 2, min_user_tokens_per_s: 20 },
    prompt_tokens: 2048, output_tokens: 512, max_gpus: 8, pricing: 'cloud', top: 10, currency: 'usd',
    gpu_filter: { groups: ['datacenter'] } });
  assert.equal('batch' in req, false, 'serve sizes the concurrency itself');
  const rate = S.toServeRequest(Object.assign(S.defaults(), { sr: 4 }), 'm');
  assert.equal(rate.request_rate_per_s, 4);
  assert.equal('users' in rate, false);
  // No target set: no "slo" key (serve ranks by cost; an empty slo is missing_key at /slo).
  const open = S.toServeRequest(Object.assign(S.defaults(), { sttft: null, stpot: null, stps: null }), 'm');
  assert.equal('slo' in open, false);
  // Prefill/decode split (serve's "disaggregated"): left out by default, "auto" or true when asked.
  assert.equal('disaggregated' in req, false);
  assert.equal(S.toServeRequest(Object.assign(S.defaults(), { sdis: 'auto' }), 'm').disaggregated, 'auto');
  assert.equal(S.toServeRequest(Object.assign(S.defaults(), { sdis: 'yes' }), 'm').disaggregated, true);
});

test('a link with a value the page cannot read says which, and keeps the rest', () => {
  // A cut-short custom model (no engine object), as a truncated link gives.
  const s = S.parse('', '#cm=' + encodeURIComponent(JSON.stringify({ name: 'x'.repeat(50000), params_b: 7 })) + '&task=lora&g=zzz');
  assert.equal(s.cm, null);
  assert.equal(s.task, 'lora');
  assert.deepEqual(S.refusedKeys(), ['cm', 'g']);
  const long = S.parse('', '#cm=' + encodeURIComponent(JSON.stringify({ name: 'x'.repeat(50000), params_b: 7, model: { params_b: 7 } })));
  assert.equal(long.cm.name.length, 200, 'the shown name keeps the length of the other texts');
  assert.deepEqual(S.refusedKeys(), []);
});

test('the own model\'s reading warnings travel in the link, and only as {code, message}', () => {
  const warn = [{ code: 'unknown_model_type', message: 'read as a Llama-like mixture of experts' }];
  const cm = { name: 'Mine', params_b: 107, model: { model_type: 'x' }, warn: warn };
  const back = S.parse('', '#' + S.serialize(Object.assign(S.defaults(), { cm: cm })));
  assert.deepEqual(back.cm.warn, warn);
  const odd = S.parse('', '#cm=' + encodeURIComponent(JSON.stringify({ name: 'x', model: {}, warn: 'not a list' })));
  assert.equal(odd.cm.warn, undefined, 'a warn that is not a list of warnings is dropped');
});

test('the serve view\'s GPUs to compare: names as people write them, an exact name alone, the unknown said', () => {
  // Entries as data/gpus.json names them (ids, names, aliases).
  const gpus = [
    { id: 'h20-96gb', name: 'NVIDIA H20 96GB', aliases: ['H20'] }, { id: 'h200-sxm-141gb', name: 'NVIDIA H200 SXM 141GB', aliases: ['H200'] },
    { id: 'a800-sxm4-80gb', name: 'NVIDIA A800 SXM4 80GB', aliases: ['A800'] }, { id: 'a800-pcie-80gb', name: 'NVIDIA A800 PCIe 80GB', aliases: ['A800 PCIe'] },
    { id: 'rtx-4090d', name: 'NVIDIA GeForce RTX 4090 D', aliases: ['4090 D'] }, { id: 'ascend-910b', name: 'Huawei Ascend 910B', aliases: ['910B', '昇腾910B'] }];
  assert.deepEqual(search.pickGpus(gpus, 'A800, H20，4090D、昇腾910B; B300'),
    { ids: ['a800-sxm4-80gb', 'h20-96gb', 'rtx-4090d', 'ascend-910b'], unmatched: ['B300'] });
  // No exact name: every GPU whose names contain it.
  assert.deepEqual(search.pickGpus(gpus, 'a800 p').ids, ['a800-pcie-80gb']);
  assert.deepEqual(search.pickGpus(gpus, 'h2').ids, ['h20-96gb', 'h200-sxm-141gb']);
  assert.deepEqual(search.pickGpus(gpus, ' , '), { ids: [], unmatched: [] });
  const req = requests.toServeRequest(defaults.defaults(), 'qwen3-32b', ['h20-96gb', 'ascend-910b']);
  assert.deepEqual(req.gpu, ['h20-96gb', 'ascend-910b']);
  assert.ok(!('gpu' in requests.toServeRequest(defaults.defaults(), 'qwen3-32b', [])), 'no names: every GPU');
});
