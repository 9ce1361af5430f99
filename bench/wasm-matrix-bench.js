#!/usr/bin/env node
// The WebAssembly engine's whole-catalog matrix (every model x every GPU, the
// page's request with the values layout) under Node, whose V8 runs the same
// code as Chromium (target <= 40 ms in the page). Prints the median wall time
// and the median CPU time of the process per call: on a shared machine the
// CPU time is the steadier figure (other work inflates wall time only).
// With several engines the calls alternate between them, so that every
// engine meets the same load.
//   node bench/wasm-matrix-bench.js [--runs N] [ENGINE.js ...]
// ENGINE.js: an Emscripten build (default build-wasm/wasm/caliper-engine.js).
'use strict';
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const TARGET_MS = 40;
const WARM_CALLS = 5;  // the first calls run before V8 has optimised the engine's code

function parseArgs(argv) {
  const args = { runs: 15, engines: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs') args.runs = Number(argv[++i]);
    else args.engines.push(path.resolve(argv[i]));
  }
  if (!args.engines.length) args.engines.push(path.join(ROOT, 'build-wasm/wasm/caliper-engine.js'));
  return args;
}

function median(values) {
  const v = values.slice().sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

async function load(file) {
  const engine = await require(file)();
  const loaded = JSON.parse(engine.loadCatalog(fs.readFileSync(path.join(ROOT, 'data/gpus.json'), 'utf8'),
    fs.readFileSync(path.join(ROOT, 'data/models.json'), 'utf8')));
  if (!loaded.ok) throw new Error(`${file}: catalog not loaded: ${JSON.stringify(loaded)}`);
  return engine;
}

const encoder = new TextEncoder(), decoder = new TextDecoder();

// The page's matrix call (engine.js callThroughBytes and matrix).
function pageMatrix(engine, request) {
  const bytes = encoder.encode(request);
  engine.textInput(0, bytes.length).set(bytes);
  const answer = JSON.parse(decoder.decode(engine.callText('matrix')));
  if (!answer.ok) throw new Error(JSON.stringify(answer.error));
  return new Float64Array(engine.cellValues());
}

// One call: wall and CPU time in ms, and a checksum of the cells (every
// engine must compute the same matrix).
function timeCall(engine, request) {
  const cpu0 = process.cpuUsage(), t0 = process.hrtime.bigint();
  const values = pageMatrix(engine, request);
  const wall = Number(process.hrtime.bigint() - t0) / 1e6, cpu = process.cpuUsage(cpu0);
  let sum = values.length;
  for (const v of values) if (Number.isFinite(v)) sum += v;
  return { wall, cpu: (cpu.user + cpu.system) / 1000, sum };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const engines = [];
  for (const file of args.engines) engines.push({ file, engine: await load(file), wall: [], cpu: [], sum: null });
  const requests = {
    inference: JSON.stringify({ model: 'all', gpu: 'all', cells_layout: 'values' }),
    'LoRA': JSON.stringify({ model: 'all', gpu: 'all', task: 'finetune', method: 'lora', cells_layout: 'values' }),
  };
  for (const [name, request] of Object.entries(requests)) {
    for (const e of engines) {
      e.wall = []; e.cpu = []; e.sum = null;
      for (let i = 0; i < WARM_CALLS; i++) e.sum = timeCall(e.engine, request).sum;
    }
    for (let i = 0; i < args.runs; i++) {
      for (const e of engines) {
        const t = timeCall(e.engine, request);
        if (t.sum !== e.sum) throw new Error(`${e.file}: answers differ between calls`);
        e.wall.push(t.wall);
        e.cpu.push(t.cpu);
      }
    }
    for (const e of engines) {
      const cpu = median(e.cpu);
      if (e.sum !== engines[0].sum) console.log(`  ${e.file}: its cells differ from ${engines[0].file}'s`);
      console.log(`${name} matrix, ${path.relative(process.cwd(), e.file)}: wall median ${median(e.wall).toFixed(1)} ms, ` +
        `CPU median ${cpu.toFixed(1)} ms of ${args.runs} calls ` +
        `(target <= ${TARGET_MS} ms): ${cpu <= TARGET_MS ? 'within target' : 'OVER target'}`);
    }
  }
}

main().catch((e) => {
  console.error(`wasm-matrix-bench: ${e.message}`);
  process.exit(1);
});
