// Shared set-up for the page tests: one headless Chromium per test file, the
// static server from scripts/serve.js on a free port, and pages that record
// every console error, page error, dialog and request that would leave the
// machine. The same tests run over http:// (dist/index.html) and file://
// (dist/caliper.html, the self-contained file).
'use strict';
const assert = require('node:assert/strict');
const fs = require('fs');
const path = require('path');
const { fork } = require('child_process');
const { describe, before, after, test } = require('node:test');
const { chromium } = require('playwright-core');

const ROOT = path.resolve(__dirname, '../../..');
const DIST = path.join(ROOT, 'dist');
const SCREENSHOTS = path.join(ROOT, 'test-results', 'screenshots');
// The flags TOOLCHAIN.md lists for this closed network; the browser is the
// system's Chromium, never a downloaded one.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const WAIT_MS = 30000;

function requireBuiltPages() {
  for (const file of ['index.html', 'caliper.html']) {
    assert.ok(fs.existsSync(path.join(DIST, file)),
      `dist/${file} is missing: build the page first (scripts/build.sh)`);
  }
}

function launchBrowser() {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

// scripts/serve.js in a child process on port 0; resolves with the port it got.
function startServer() {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(ROOT, 'scripts/serve.js'), [DIST, '0'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.once('message', (msg) => resolve({ port: msg.port, stop: () => child.kill() }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`scripts/serve.js exited with ${code}`)));
  });
}

// Both doors to the page: name, base URL (query and hash go after it).
function origins(port) {
  return [
    { name: 'http', base: `http://127.0.0.1:${port}/index.html` },
    { name: 'file', base: 'file://' + path.join(DIST, 'caliper.html') },
  ];
}

// Local addresses only: the page from disk or from this machine's server,
// and the data:/blob: URLs the page makes itself.
function isLocal(url, port) {
  return url.startsWith('file://') || url.startsWith(`http://127.0.0.1:${port}/`) ||
    url.startsWith('data:') || url.startsWith('blob:');
}

// A browser context whose pages are watched. problems: every console error,
// uncaught page error, dialog (alert/confirm) and non-local request seen.
async function watchedContext(browser, port, options = {}, problems = []) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 }, acceptDownloads: true, ...options });
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (isLocal(url, port)) return route.continue();
    problems.push(`request left the machine: ${url}`);
    return route.abort();
  });
  context.on('page', (page) => watchPage(page, port, problems));
  return { context, problems };
}

function watchPage(page, port, problems) {
  page.on('console', (msg) => { if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('dialog', (dialog) => { problems.push(`dialog: ${dialog.type()} ${dialog.message()}`); dialog.dismiss().catch(() => {}); });
  page.on('request', (req) => { if (!isLocal(req.url(), port)) problems.push(`request: ${req.url()}`); });
}

function assertClean(problems) {
  assert.deepEqual(problems, [], 'no console error, page error, dialog or non-local request');
}

// Opens url in a new page and waits until the engine and catalog are loaded
// (and, in the matrix view, the first matrix is painted).
async function openPage(context, url) {
  const page = await context.newPage();
  await page.goto(url);
  await waitReady(page);
  return page;
}

async function waitReady(page) {
  await page.waitForFunction(() => {
    const C = window.__caliperPage, t = window.__caliperTimings;
    if (!C || !C.app || !C.app.ready || !t) return false;
    return C.app.state.view !== 'matrix' || t.lastRepaintMs !== null;
  }, null, { timeout: WAIT_MS });
}

// Every row of the matrix built (cells either current or marked pending).
async function waitRowsBuilt(page) {
  await page.waitForFunction(() => {
    const table = document.querySelector('#matrix');
    return table && !table.dataset.pending && table.querySelector('tbody tr');
  }, null, { timeout: WAIT_MS });
}

// Scrolls the matrix along one axis ('y' down, 'x' right) as a reader
// would, a screenful at a time with a frame or two between steps, and calls
// visit(page) at each step until it returns false: the table body holds only
// the rows and columns near the view.
async function scrollMatrix(page, axis, visit) {
  const box = await page.evaluate((a) => {
    const w = document.querySelector('#matrix-wrap');
    return a === 'y' ? { end: w.scrollHeight, step: w.clientHeight * 0.8 } : { end: w.scrollWidth, step: w.clientWidth * 0.6 };
  }, axis);
  for (let at = 0; ; at = Math.min(at + box.step, box.end)) {
    await page.evaluate(([a, v]) => new Promise((resolve) => {
      document.querySelector('#matrix-wrap')[a === 'y' ? 'scrollTop' : 'scrollLeft'] = v;
      requestAnimationFrame(() => requestAnimationFrame(resolve));
    }), [axis, at]);
    if (await visit(page) === false) return false;
    if (at >= box.end) return true;
  }
}

// Scrolls down to the model's row, then right to the GPU's cell; returns the cell's selector.
async function scrollToCell(page, modelId, gpuId) {
  const row = `#matrix tr[data-model-id="${modelId}"]`;
  const cell = `#matrix td.c[data-model-id="${modelId}"][data-gpu-id="${gpuId}"]`;
  await scrollMatrix(page, 'y', async (p) => ((await p.$(row)) ? false : undefined));
  await scrollMatrix(page, 'x', async (p) => ((await p.$(cell)) ? false : undefined));
  assert.ok(await page.$(cell), `cell ${modelId} × ${gpuId} reached by scrolling`);
  return cell;
}

// The page's state and the engine requests it makes from it.
// The address is written once the changed view is shown (the task after the
// next frame, main.js): read after a task queued the same way.
function pageState(page) {
  return page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(() => {
    const C = window.__caliperPage, s = C.app.state;
    resolve({ state: s, matrixRequest: C.requests.toMatrixRequest(s, null), hash: location.hash, url: location.href });
  }, 0))));
}

async function screenshot(page, name, options = {}) {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, name + '.png'), ...options });
}

// A browser, the local server and one watched context for a file of tests
// that need no second door. Returns an object that holds, once the tests
// run: context, problems, and newContext(options) for another watched
// context (another viewport) whose problems count with the first's.
function oneOrigin() {
  const env = { problems: [] };
  before(async () => {
    requireBuiltPages();
    env.browser = await launchBrowser();
    env.server = await startServer();
    ({ context: env.context } = await watchedContext(env.browser, env.server.port, {}, env.problems));
  });
  after(async () => {
    if (env.browser) await env.browser.close();
    if (env.server) env.server.stop();
  });
  env.newContext = async (options) => (await watchedContext(env.browser, env.server.port, options, env.problems)).context;
  return env;
}

// Registers the same tests over both doors. register(env) gets an object that
// holds, once the suite runs: name ('http' | 'file'), port, base (page URL),
// context (a watched browser context), problems, and url(hash) to build URLs.
// Each door ends with a test that fails on any problem its pages recorded.
function forEachOrigin(title, register) {
  const shared = {};
  before(async () => {
    requireBuiltPages();
    shared.browser = await launchBrowser();
    shared.server = await startServer();
  });
  after(async () => {
    if (shared.browser) await shared.browser.close();
    if (shared.server) shared.server.stop();
  });
  for (const name of ['http', 'file']) {
    describe(`${title} over ${name}://`, () => {
      const env = { name, shared };
      before(async () => {
        env.port = shared.server.port;
        env.base = origins(env.port).find((o) => o.name === name).base;
        env.url = (hash) => env.base + (hash ? '#' + hash : '');
        const watched = await watchedContext(shared.browser, env.port);
        env.context = watched.context;
        env.problems = watched.problems;
        // Another context (other viewport or locale) whose problems count here too.
        env.newContext = async (options) => {
          const extra = await watchedContext(shared.browser, env.port, options, env.problems);
          env.extraContexts.push(extra.context);
          return extra.context;
        };
        env.extraContexts = [];
      });
      after(async () => {
        for (const c of env.extraContexts || []) await c.close();
        if (env.context) await env.context.close();
      });
      register(env);
      test('no console error, page error or dialog, and no request left the machine', () => assertClean(env.problems));
    });
  }
}

module.exports = {
  ROOT, DIST, SCREENSHOTS, WAIT_MS, requireBuiltPages, launchBrowser, startServer, origins, isLocal,
  watchedContext, assertClean, openPage, waitReady, waitRowsBuilt, scrollMatrix, scrollToCell, pageState, screenshot, forEachOrigin, oneOrigin,
};
