// "How many users?" is a whole number (docs/CONTRACT.md "Serve": `users`
// 5.5 is invalid_value at /users). The serve view says so beside the field
// and changes nothing else, as its other whole-number fields do; a link
// with a fractional `su` is refused and named in the notice, not sent to the
// engine to come back as an English error in place of the answer.
'use strict';
const { test, before } = require('node:test');
const assert = require('node:assert/strict');
const h = require('./support/harness.js');

let zh, en;
before(async () => {
  ({ zh } = await import('../../web/src/i18n/zh.js'));
  ({ en } = await import('../../web/src/i18n/en.js'));
});

const QUESTION = 'view=serve&sm=llama-3.1-8b&su=50&stps=20';

function snapshot(page) {
  return page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(() => resolve({
    su: window.__caliperPage.app.state.su,
    hash: location.hash,
    results: document.querySelector('#serve-results').innerText
  }), 0))));
}

h.forEachOrigin('serve users are whole', (env) => {
  for (const lang of ['en', 'zh']) {
    test(`${lang}: 5.5 users is marked on the field; the answer and the address stay`, async () => {
      const texts = lang === 'zh' ? zh : en;
      const page = await h.openPage(env.context, env.url(`lang=${lang}&${QUESTION}`));
      await page.waitForSelector('#serve-table tbody tr');
      const before = await snapshot(page);
      assert.equal(before.su, 50);
      await page.fill('#sv-users', '5.5');
      await page.press('#sv-users', 'Tab');
      await page.waitForSelector('#sv-users[aria-invalid="true"]');
      // The whole-number message the other whole fields (prompt, output tokens) give.
      const expected = texts['error.wholeNumber'].replace('{min}', '1');
      const message = await page.textContent('#sv-users-error');
      assert.ok(message.startsWith(expected.slice(0, expected.indexOf('{max}'))), `${lang}: ${message}`);
      const after = await snapshot(page);
      assert.deepEqual(after, before, 'state, address and answer unchanged');
      // A whole number clears the mark and is taken.
      await page.fill('#sv-users', '60');
      await page.press('#sv-users', 'Tab');
      await page.waitForFunction(() => window.__caliperPage.app.state.su === 60);
      assert.equal(await page.$('#sv-users[aria-invalid]'), null);
      await page.close();
    });
  }

  test('a link with su=5.5 is refused and named by its label; the view answers for whole users', async () => {
    const page = await h.openPage(env.context, env.url('lang=en&view=serve&sm=llama-3.1-8b&su=5.5'));
    await page.waitForSelector('#url-notice:not([hidden])');
    // The notice names the refused key by its field's label (main.js showRefused).
    assert.ok((await page.textContent('#url-notice')).includes(en['serve.usersLabel']));
    const su = await page.evaluate(() => window.__caliperPage.app.state.su);
    assert.ok(Number.isInteger(su), `users ${su}`);
    await page.waitForSelector('#serve-table tbody tr');
    assert.doesNotMatch(await page.textContent('#serve-results'), /\/users/);
    await page.close();
  });
});
