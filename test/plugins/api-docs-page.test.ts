// The docs page in a real browser (Debian's chromium through playwright-core): it loads with no console errors and
// nothing fetched from outside the server, lists the operations, and "try it out" on /version shows the answer.
// A screenshot is kept in the test's fixture dir (its path is printed).
import t from 'tap';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startForge } from '../helpers/forge.js';
import { browserUnavailable, CHROMIUM, CHROMIUM_ARGS } from '../markup/browser.js';

t.test('the docs page serves its own assets', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const page = await f.request('GET', '/api/swagger', { root: true });
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  t.notMatch(page.text, /https?:\/\//, 'no absolute URL: nothing from a CDN');
  const bundle = await f.request('GET', '/api/swagger/swagger-ui-bundle.js', { root: true });
  t.equal(bundle.status, 200);
  t.match(bundle.headers.get('content-type'), /^text\/javascript/);
  t.ok(bundle.text.length > 100_000);
  t.match((await f.request('GET', '/api/swagger/swagger-ui.css', { root: true })).headers.get('content-type'), /^text\/css/);
  t.equal((await f.request('GET', '/api/swagger/favicon-32x32.png', { root: true })).headers.get('content-type'), 'image/png');
  for (const other of ['package.json', 'index.html', '..%2Fpackage.json', 'swagger-ui-bundle.js.map']) {
    t.equal((await f.request('GET', `/api/swagger/${other}`, { root: true })).status, 404, `${other} is not served`);
  }
  const error = await f.request('GET', '/repos/nobody/nothing/forks', { headers: { Authorization: 'token nope' } });
  t.equal(error.status, 401);
  t.equal(error.json.url, `${f.url}/api/swagger`, 'error urls point at the docs page');
});

t.test('the docs page in headless chromium', async (t) => {
  const missing = browserUnavailable();
  if (missing) {
    if (process.env.FORGEKIT_SKIP_BROWSER === '1') {
      t.comment(`browser check skipped by FORGEKIT_SKIP_BROWSER=1 (${missing})`);
      t.pass('skipped by hand');
      return;
    }
    t.fail(missing);
    return;
  }
  const f = await startForge();
  t.teardown(() => f.close());
  const described = (await f.request('GET', '/swagger.v1.json', { root: true })).json;
  const operations = Object.values<any>(described.paths).reduce((n, item) => n + Object.keys(item).length, 0);

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
  const problems: string[] = [];
  const outside: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1') return route.continue();
    outside.push(url.href);
    return route.abort();
  });

  await page.goto(`${f.url}/api/swagger`);
  // Tags start collapsed (213+ operations expanded at once is a heavy page): every tag is listed, and opening each
  // lists exactly its operations.
  const tags: string[] = described.tags.map((tag: { name: string }) => tag.name);
  await page.waitForSelector('.opblock-tag', { timeout: 60_000 });
  t.equal(await page.locator('.opblock-tag').count(), tags.length, `the page lists all ${tags.length} tags`);
  let listed = 0;
  for (const tag of tags) {
    const header = page.locator(`.opblock-tag[data-tag="${tag}"]`);
    const expected = Object.values<any>(described.paths)
      .reduce((n, item) => n + Object.values<any>(item).filter((op) => op.tags?.includes(tag)).length, 0);
    await header.click();
    const section = page.locator(`.opblock-tag-section:has(.opblock-tag[data-tag="${tag}"]) .opblock`);
    await page.waitForFunction(([name, n]) => document.querySelectorAll(
      `.opblock-tag-section:has(.opblock-tag[data-tag="${name}"]) .opblock`).length >= (n as number), [tag, expected] as const, { timeout: 30_000 })
      .catch(() => undefined);
    const count = await section.count();
    if (count !== expected) t.equal(count, expected, `tag ${tag} lists its ${expected} operations`);
    listed += count;
    if (tag !== 'version') await header.click();
  }
  t.equal(listed, operations, `the page lists all ${operations} operations of the description`);
  t.ok(await page.locator('.opblock-summary-path[data-path="/version"]').count() >= 1, 'the version operation is open');

  const version = page.locator('#operations-version-getVersion');
  await version.locator('.opblock-summary').click();
  await version.locator('.try-out__btn').click();
  await version.locator('.execute').click();
  const status = version.locator('.live-responses-table .response .response-col_status');
  await status.first().waitFor({ timeout: 60_000 });
  t.equal((await status.first().innerText()).trim(), '200', 'try it out: 200');
  const answer = await version.locator('.live-responses-table .response-col_description pre').first().innerText();
  t.same(JSON.parse(answer), (await f.request('GET', '/version')).json, 'try it out shows the server\'s answer');

  t.saveFixture = true;
  const dir = t.testdir({});
  const shot = path.join(dir, 'api-swagger.png');
  await page.screenshot({ path: shot, fullPage: false });
  t.comment(`screenshot: ${shot}`);

  t.same(problems, [], 'no console errors, no failed requests');
  t.same(outside, [], 'nothing fetched from outside the server');
});
