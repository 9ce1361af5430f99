// Dictionaries and translation lookup (web/src/i18n), presets and exports.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { fileURLToPath } from 'url';
import * as i18n from '../../web/src/i18n/i18n.js';
import { en } from '../../web/src/i18n/en.js';
import { zh } from '../../web/src/i18n/zh.js';
import { codes } from '../../web/src/i18n/codes.js';
import * as presets from '../../web/src/state/presets.js';
import * as S from '../../web/src/state/defaults.js';
import * as exporter from '../../web/src/export/export.js';
import * as D from '../../web/src/views/detail.js';

const __dirname = path.dirname(fileURLToPath(import.meta.url));

test('English and Chinese have the same keys, none empty', () => {
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
  for (const [k, v] of Object.entries(zh)) assert.ok(v.trim(), `zh ${k} is empty`);
});

// An object literal keeps the last of two equal keys without a word, so a
// text written twice hides one of them (term.decode_host_ms was, with two
// meanings). Read from the source, since the loaded object has one of each.
test('no dictionary names a key twice', () => {
  for (const file of ['en.js', 'zh.js', 'codes.js']) {
    const src = fs.readFileSync(path.join(__dirname, '../../web/src/i18n', file), 'utf8');
    const blocks = [...src.matchAll(/^var (\w+) = \{\n([\s\S]*?)^\};/gm)];
    assert.ok(blocks.length >= 1, `${file}: dictionaries found`);
    for (const [, name, body] of blocks) {
      const keys = [...body.matchAll(/'([\w.\-]+)':\s/g)].map((m) => m[1]);
      assert.ok(keys.length > 100, `${file} ${name}: keys read`);
      assert.deepEqual(keys.filter((k, i) => keys.indexOf(k) !== i), [], `${file} ${name}: keys written twice`);
    }
  }
});

// The phrase and sentence tables, whose keys are English text.
test('no phrase or sentence is written twice', () => {
  for (const file of ['formulas.js']) {
    const src = fs.readFileSync(path.join(__dirname, '../../web/src/i18n', file), 'utf8');
    const keys = [...src.matchAll(/(?:^\s*|,\s+)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"):\s/gm)].map((m) => m[1].slice(1, -1));
    assert.ok(keys.length > 30, `${file}: keys read (${keys.length})`);
    assert.deepEqual(keys.filter((k, i) => keys.indexOf(k) !== i), [], `${file}: written twice`);
  }
});

test('placeholders match between the languages', () => {
  const names = (s) => (s.match(/\{\w+(?=[|}])/g) || []).sort().join();
  for (const k of Object.keys(en)) assert.equal(names(zh[k]), names(en[k]), k);
});

test('every data-i18n key in the page exists', () => {
  const html = fs.readFileSync(path.join(__dirname, '../../web/index.html'), 'utf8');
  const keys = [...html.matchAll(/data-i18n(?:-\w+)?="([^"]+)"/g)].map((m) => m[1]);
  assert.ok(keys.length > 50);
  for (const k of keys) assert.ok(k in en, `missing key ${k}`);
});

test('the language comes from the URL, then the browser', () => {
  assert.equal(i18n.pick('zh', ['en-US']), 'zh');
  assert.equal(i18n.pick('', ['zh-CN', 'en']), 'zh');
  assert.equal(i18n.pick('', ['fr-FR', 'en-GB']), 'en');
  assert.equal(i18n.pick('', []), 'en');
});

test('lookup fills placeholders and falls back to English', () => {
  i18n.setLang('zh');
  assert.equal(i18n.t('cmp.gpu', { n: 2 }), '显卡 2');
  assert.equal(i18n.t('no.such.key'), 'no.such.key');
  i18n.setLang('en');
  assert.equal(i18n.t('rec.config', { n: 4, gpu: 'A800' }), '4 × A800');
  // Singular and plural in English ("1 model", not "1 models").
  assert.equal(i18n.fill('{n|model|models}', { n: 1 }), '1 model');
  assert.equal(i18n.fill('{n|model|models}', { n: '1,024' }), '1,024 models');
  assert.equal(i18n.t('detail.planText', { tp: 1, pp: 1, dp: 1, nodes: 1 }), 'TP 1 × PP 1 × DP 1 on 1 server');
  assert.equal(i18n.t('inv.uses', { n: 2 }), 'on 2 GPUs');
});

test('engine codes are translated, with the engine message as fallback', () => {
  i18n.setLang('zh');
  assert.equal(i18n.code('warn', 'no_nvlink', 'x has no NVLink'), codes.zh['warn.no_nvlink']);
  assert.equal(i18n.code('warn', 'brand_new_code', 'English text'), 'English text');
  // Chinese readers get the code's translation with the value it names and
  // the name it suggests; the engine's English message is the secondary detail.
  const unknown = { code: 'unknown_gpu', message: "unknown GPU 'H1000'; did you mean 'H100 SXM5 80GB'?", path: '/gpu' };
  assert.equal(i18n.errorText(unknown), '未知显卡：“H1000”，是不是 “H100 SXM5 80GB”？');
  assert.equal(i18n.errorDetail(unknown), unknown.message);
  // The engine's JSON reader says what it expected (core/src/json/json_read.cpp): kept, in Chinese.
  assert.equal(i18n.errorText({ code: 'invalid_value', message: 'expected a number at most 2048, got 99999', path: '/gpu/memory_gib' }),
    '取值无效：应不大于 2048，实际为 99999');
  assert.equal(i18n.errorText({ code: 'invalid_value', message: 'expected a positive number, got "a"' }), '取值无效：应为正数，实际为 “a”');
  assert.equal(i18n.errorText({ code: 'invalid_value', message: 'expected an integer from 1 to 1024, got 0' }), '取值无效：应为 1 到 1024 之间的整数，实际为 0');
  assert.doesNotMatch(i18n.errorText({ code: 'invalid_config', message: 'expected hidden_size > 0' }), /[A-Za-z]{3}/);
  i18n.setLang('en');
  assert.equal(i18n.code('warn', 'no_nvlink', 'x has no NVLink'), 'X has no NVLink');
  // A warning, a note or an error stands alone: it starts as a sentence,
  // though the engine writes its messages in small letters (recommend's
  // no_gpus note, core/src/answers/recommend.cpp); a first word that is a
  // name in small letters stays. The why texts follow a colon and stay.
  assert.equal(i18n.code('warn', 'brand_new_code', "no GPU matches the request's GPU list and filter"),
    "No GPU matches the request's GPU list and filter");
  assert.equal(i18n.code('warn', 'brand_new_code', 'llama.cpp keeps the cache in host RAM'), 'llama.cpp keeps the cache in host RAM');
  assert.equal(i18n.code('warn', 'brand_new_code', 'vLLM needs CUDA'), 'vLLM needs CUDA');
  assert.equal(i18n.code('warn', 'brand_new_code', 'rtx-4090: no NVLink'), 'rtx-4090: no NVLink');
  assert.equal(i18n.code('why', 'fits_one_gpu'), codes.en['why.fits_one_gpu']);
  assert.equal(i18n.errorText({ code: 'x', message: 'expected hidden_size > 0' }), 'Expected hidden_size > 0');
  Object.keys(codes.en).filter((k) => /^(warn|sugg|rule|error)\./.test(k)).forEach((k) => {
    assert.doesNotMatch(codes.en[k], /^[a-z][a-z]+\s/, `${k} starts as a sentence`);
    assert.ok(codes.zh[k], `${k} has a Chinese text`);
  });
  assert.equal(i18n.code('sugg', 'gradient_checkpointing'), 'Gradient checkpointing');
  assert.equal(i18n.code('sugg', 'new_idea'), 'New idea');
});

test('presets set workload and filters from the engine\'s presets (describe), the page keeping none of its own', () => {
  // Three of `caliper describe`'s presets, as the engine writes them (core/src/answers/presets.cpp).
  presets.setEngine([
    { id: 'lora', request: { batch: 1, max_gpus: 64, method: 'lora', objective: 'cheapest', seq_len: 2048, task: 'finetune', train_tokens: 1e8 },
      model_band: { min_params_b: 6.5, max_params_b: 13.9, modality: null } },
    { id: 'multimodal', request: { batch: 1, max_gpus: 64, objective: 'cost_per_token', prompt_tokens: 3584, output_tokens: 512, task: 'inference' },
      model_band: { min_params_b: 6.5, max_params_b: 31, modality: 'vision' } },
    { id: 'speech', request: { audio_seconds: 600, batch: 8, max_gpus: 64, objective: 'cheapest', prompt_tokens: 64, output_tokens: 384, task: 'inference' },
      model_band: { min_params_b: null, max_params_b: 7.9, modality: null } },
    { id: 'pretrain', request: { batch: 1, max_gpus: 1024, objective: 'cost_per_token', seq_len: 4096, task: 'pretrain', train_tokens: 1e12 },
      model_band: { min_params_b: 65, max_params_b: null, modality: null } }]);
  const models = [{ family: 'Llama 3.2 Vision', modality: 'vision' }, { family: 'Qwen2.5', modality: 'text' }];
  const start = Object.assign(S.defaults(), { q: 'leftover', cur: 'cny', lang: 'zh' });
  const lora = presets.apply(start, 'lora', models);
  assert.deepEqual([lora.task, lora.ctx, lora.g, lora.obj, lora.pmin, lora.pmax, lora.q, lora.cur, lora.b, lora.tt],
    ['lora', 2048, 64, 'cheapest', 6.5, 13.9, '', 'cny', 1, null],
    'tokens equal to the task\'s default stay unset; the preset\'s micro-batch 1 is kept (training\'s default is the engine\'s search)');
  const mm = presets.apply(start, 'multimodal', models);
  assert.deepEqual([mm.task, mm.ctx, mm.fam], ['inference', 4096, ['Llama 3.2 Vision']]);
  const speech = presets.apply(start, 'speech', models);
  assert.deepEqual([speech.task, speech.b, speech.ctx, speech.pmax, speech.show], ['serving', 8, 448, 7.9, 'cost'], 'many streams: the serving task');
  const pre = presets.apply(start, 'pretrain', models);
  assert.deepEqual([pre.g, pre.pmin, pre.tt, pre.cls], [1024, 65, null, ['datacenter', 'china']]);
  assert.equal(presets.matching(lora, models), 'lora');
  assert.equal(presets.matching(start, models), null);
  assert.equal(presets.apply(start, 'sft', models), start, 'a preset the engine lacks changes nothing');
  presets.setEngine([]);
});

test('CSV fields are quoted and cannot start a formula', () => {
  assert.equal(exporter.csvField('a,b'), '"a,b"');
  assert.equal(exporter.csvField('say "hi"'), '"say ""hi"""');
  assert.equal(exporter.csvField('=cmd()'), "'=cmd()");
  assert.equal(exporter.csvField(-3), '-3');
  assert.equal(exporter.csvField(null), '');
});

test('matrix CSV has one line per model × GPU', () => {
  const matrix = { models: [{ id: 'm', name: 'M', family: 'F', params_b: 7 }],
    gpus: [{ id: 'g1', name: 'G1', group: 'consumer', memory_gib: 24 }, { id: 'g2', name: 'G2', group: 'other', memory_gib: 64 }],
    cells: [[{ status: 'fits', gpu_count: 1, gpus_needed: 1, total_gib: 15 }, { status: 'no', gpu_count: null, gpus_needed: null }]] };
  const lines = exporter.matrixToCsv(matrix).trim().split('\r\n');
  assert.equal(lines.length, 3);
  assert.ok(lines[0].startsWith('model_id,model_name,family,params_b,gpu_id'));
  assert.ok(lines[0].includes(',gpu_count,gpus_needed,status,'));
  assert.ok(lines[1].startsWith('m,M,F,7,g1,G1,consumer,24,1,1,fits'));
});

test('matrix CSV money columns follow the currency: yuan at the engine\'s rate, dollars without one', () => {
  // 7.1: the engine's default cny_per_usd (describe().defaults); $0.5/h → ¥3.55/h.
  const matrix = { models: [{ id: 'm', name: 'M', family: 'F', params_b: 7 }], gpus: [{ id: 'g', name: 'G', group: 'consumer', memory_gib: 24 }],
    cells: [[{ status: 'fits', gpus_needed: 1, usd_per_hour: 0.5, usd_per_million_tokens: 2, cost_usd: null }]] };
  const [head, row] = exporter.matrixToCsv(matrix, 'cny', 7.1).trim().split('\r\n').map((l) => l.split(','));
  assert.deepEqual(head.filter((k) => /usd|cny/.test(k)), ['cny_per_hour', 'cny_per_million_tokens', 'cost_cny']);
  assert.equal(row[head.indexOf('cny_per_hour')], '3.55');
  assert.equal(row[head.indexOf('cny_per_million_tokens')], '14.2');
  assert.equal(row[head.indexOf('cost_cny')], '');
  const usd = exporter.matrixToCsv(matrix, 'cny', null).split('\r\n')[0].split(',');
  assert.deepEqual(usd.filter((k) => /usd|cny/.test(k)), ['usd_per_hour', 'usd_per_million_tokens', 'cost_usd'], 'no rate: dollars, named so');
});

test('embed snippet escapes the URL for an attribute', () => {
  const s = exporter.embedSnippet('file:///x.html#a=1&b="2"', 'Caliper');
  assert.ok(s.includes('src="file:///x.html#a=1&amp;b=&quot;2&quot;"'));
  assert.ok(s.startsWith('<iframe '));
});

// Every term the engine explains ("show the math"), read from its source:
// the names given to ex.add(...) and explain.push_back({...}) in core/src.
function engineExplainTerms() {
  const dir = path.join(__dirname, '../../core/src');
  const terms = new Set();
  const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).forEach((e) => {
    const p = path.join(d, e.name);
    if (e.isDirectory()) return walk(p);
    if (!p.endsWith('.cpp')) return;
    const text = fs.readFileSync(p, 'utf8');
    for (const m of text.matchAll(/(?:ex\.add\(|explain\.push_back\(\{)\s*"([a-z0-9_]+)"/g)) terms.add(m[1]);
  });
  walk(dir);
  return [...terms].sort();
}

test('every explain term of the engine has a name in both languages and a unit', () => {
  const terms = engineExplainTerms();
  assert.ok(terms.length >= 40 && terms.includes('decode_weight_read_gb') && terms.includes('train_mfu'), `terms found: ${terms.length}`);
  for (const term of terms) {
    assert.ok(codes.en['term.' + term], `English name for ${term}`);
    assert.ok(codes.zh['term.' + term], `Chinese name for ${term}`);
    assert.ok(D.termUnit(term, (k) => en[k]), `a unit for ${term}`);
  }
  i18n.setLang('zh');
  assert.equal(i18n.code('term', 'decode_bandwidth_fraction', 'decode_bandwidth_fraction'), codes.zh['term.decode_bandwidth_fraction']);
  i18n.setLang('en');
});

test('explain units follow the suffix of the term', () => {
  const t = (k) => en[k];
  assert.deepEqual(D.termUnit('kv_pool_unused_gib', t), { suffix: 'GiB' });
  assert.deepEqual(D.termUnit('decode_kv_read_gb', t), { suffix: 'GB' });
  assert.deepEqual(D.termUnit('decode_fixed_ms', t), { suffix: en['unit.ms'] });
  assert.deepEqual(D.termUnit('train_step_compute_s', t), { suffix: en['unit.s'] });
  assert.deepEqual(D.termUnit('prefill_peak_tflops', t), { suffix: 'TFLOPS' });
  assert.deepEqual(D.termUnit('decode_tokens_per_s', t), { suffix: en['unit.tokPerS'] });
  assert.deepEqual(D.termUnit('power_w', t), { suffix: 'W' });
  assert.deepEqual(D.termUnit('cost_usd', t), { prefix: '$' });
  assert.deepEqual(D.termUnit('usd_per_hour', t), { prefix: '$', suffix: en['unit.perHour'] });
  assert.deepEqual(D.termUnit('decode_bandwidth_fraction', t), { percent: true });
  assert.deepEqual(D.termUnit('train_mfu', t), { percent: true });
  assert.equal(D.termUnit('no_unit_here', t), null);
});

test('recommendation reasons carry the same figures in both languages', () => {
  for (const k of Object.keys(en).filter((x) => x.startsWith('reason.'))) assert.ok(zh[k], k);
  i18n.setLang('zh');
  assert.equal(i18n.t('reason.cheapestRent', { price: '¥1.56/小时' }), '租用最便宜：¥1.56/小时');
  i18n.setLang('en');
  assert.equal(i18n.t('reason.cheapestBuy', { price: '$1,499' }), 'Cheapest to buy: $1,499 for the GPUs');
  // A training run ranks by its total cost (core/src/answers/recommend.cpp priceOf), not per hour.
  assert.equal(i18n.t('reason.cheapestRun', { price: '$395,000' }), 'Cheapest run: $395,000 in total');
  assert.doesNotMatch(i18n.t('obj.cheapestRun'), /hour/);
  i18n.setLang('zh');
  assert.equal(i18n.t('reason.cheapestRun', { price: '¥2,844,000' }), '训练总成本最低：共 ¥2,844,000');
  i18n.setLang('en');
});

test('why a training plan is not sharded reads right for its layout', async () => {
  const { whyCode } = await import('../../web/src/views/detail.js');
  // The engine's code for an unsharded training plan (core/src/plan/planner.cpp).
  assert.equal(whyCode('strategy_replicas_fit', { tp: 1, pp: 1, dp: 4 }), 'strategy_replicas_fit');
  // Llama 3.1 405B pre-training on H100s: TP 8 x PP 14, not "a full replica on each GPU".
  assert.equal(whyCode('strategy_replicas_fit', { tp: 8, pp: 14, dp: 1 }), 'strategy_model_split');
  assert.equal(whyCode('strategy_replicas_fit', { tp: 1, pp: 3, dp: 1 }), 'strategy_model_split');
  assert.equal(whyCode('count_fewest_that_fit', { tp: 8, pp: 1, dp: 1 }), 'count_fewest_that_fit');
  for (const lang of ['en', 'zh']) assert.ok(codes[lang]['why.strategy_model_split'], `${lang} text`);
  assert.doesNotMatch(codes.en['why.strategy_model_split'], /replica|data parallel/);
});

test('a pasted JSON that does not parse: where it stopped, in the page\'s words (the browser\'s English is the detail)', async () => {
  const { jsonErrorAt } = await import('../../web/src/views/custom.js');
  const text = '{\n  nope';
  // Chromium's JSON.parse messages name the line and column or the position.
  assert.deepEqual(jsonErrorAt(text, 'Expected property name or \'}\' in JSON at position 4 (line 2 column 3)'), { line: 2, col: 3 });
  assert.deepEqual(jsonErrorAt(text, 'Unexpected token n in JSON at position 4'), { line: 2, col: 3 });
  assert.equal(jsonErrorAt(text, 'JSON.parse: unexpected character'), null);
  for (const dict of [en, zh]) assert.doesNotMatch(dict['custom.badJsonAt'] + dict['custom.badJson'], /\{message\}/);
  i18n.setLang('zh');
  assert.equal(i18n.t('custom.badJsonAt', { line: 2, col: 3 }), '不是有效的 JSON：请检查第 2 行第 3 列。');
  i18n.setLang('en');
});

// Formulas (i18n/formulas.js): phrase by phrase, figures and names kept; a
// formula with an English phrase the table lacks is not half translated.
test('engine formulas in Chinese phrase by phrase, or not at all', () => {
  const formula = 'replicas x sequences / step time';  // core/src/speed/decode.cpp: decode_tokens_per_s
  i18n.setLang('en');
  assert.equal(i18n.formula(formula), formula);
  i18n.setLang('zh');
  assert.equal(i18n.formula(formula), '副本数 × 序列数 / 步时间');
  assert.equal(i18n.formula('dense tensor rate per GPU: bf16_tflops'), '每卡稠密张量算力: bf16_tflops');
  assert.equal(i18n.formula('replicas x sequences / a phrase the table lacks'), null);
  assert.deepEqual(i18n.untranslated('vllm 预分配 KV 池: gpu_memory_utilization 0.90, llama.cpp n_batch'), []);
  assert.deepEqual(i18n.untranslated('权重 read per step'), ['read', 'per', 'step']);
  i18n.setLang('en');
});

