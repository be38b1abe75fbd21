// Work a plugin leaves running after the boot (`ctx.kernel.background`): the server answers meanwhile, and
// `Forge.settled()` resolves once all of it has ended, with a report per piece (a failure logged, never unhandled).
import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { definePlugin } from '../../core/plugin.js';
import { builtinPlugins, createForge } from '../../plugins/index.js';
import { freePort, startForge } from '../helpers/forge.js';

/** A promise and its resolve/reject, to end a piece of work when the test says so. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (err: Error) => void } {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Whether `promise` has settled after the pending I/O and timers of one turn. */
async function hasEnded(promise: Promise<unknown>): Promise<boolean> {
  let ended = false;
  void promise.then(() => { ended = true; }, () => { ended = true; });
  await new Promise((resolve) => setTimeout(resolve, 20));
  return ended;
}

t.test('background work: answered meanwhile, settled once it has ended, failures reported and logged', async (t) => {
  const index = deferred();
  const warmup = deferred();
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  const worker = definePlugin({
    name: 'worker',
    start(ctx) {
      ctx.kernel.background('worker: index', index.promise);
      ctx.kernel.background('worker: warm-up', warmup.promise);
    },
  });
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-background-'));
  const forge = await createForge({
    plugins: [...builtinPlugins, worker],
    logger: pino({ level: 'info' }, sink),
    config: { port: await freePort(), host: '127.0.0.1', dataDir, admin: { username: 'root', password: 'root-password-1', email: 'root@example.com' } },
  });
  const { url } = await forge.listen();
  t.teardown(async () => {
    await forge.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const settled = forge.settled();
  const version = await fetch(`${url}/api/v1/version`);
  t.equal(version.status, 200, 'requests are answered while the work runs');
  t.notOk(await hasEnded(settled), 'not settled while both pieces run');

  index.resolve();
  t.notOk(await hasEnded(settled), 'not settled while one piece runs');

  warmup.reject(new Error('cache unreadable'));
  const reports = await settled;
  const byName = new Map(reports.map((r) => [r.name, r]));
  t.same([...byName.keys()].sort(), ['issues: q trigram index', 'worker: index', 'worker: warm-up'], 'every piece reported, the built-in q index too');
  t.equal(byName.get('worker: index')!.ok, true);
  t.equal(byName.get('worker: warm-up')!.ok, false, 'the failed piece says so');
  t.ok(reports.every((r) => Number.isInteger(r.ms) && r.ms >= 0), 'each with its time');
  const failure = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'background work failed');
  t.equal(failure?.work, 'worker: warm-up', 'the failure is logged with the work\'s name');
  t.match(failure?.err?.message, /cache unreadable/);

  t.same(await forge.settled(), reports, 'asked again: at once, the same reports');
});

t.test('a server with no background work of its own settles at once', async (t) => {
  const f = await startForge({ disabledPlugins: ['issues', 'pulls', 'notifications'] });
  t.teardown(() => f.close());
  t.same(await f.forge.settled(), []);
});

t.test("a restart builds the store's indexes after it listens, answering meanwhile", async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-background-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const first = await startForge({ dataDir });
  t.same((await first.forge.settled()).map((r) => r.name), ['issues: q trigram index'], 'a new data dir: every index built as declared');
  await first.close();

  const again = await startForge({ dataDir });
  t.teardown(() => again.close());
  const settled = again.forge.settled();
  const user = await fetch(`${again.url}/api/v1/users/root`);
  t.equal(user.status, 200, 'answered while the indexes are built');
  t.equal(((await user.json()) as { login: string }).login, 'root');
  const reports = await settled;
  t.same(reports.map((r) => [r.name, r.ok]).sort(), [['issues: q trigram index', true], ['store: indexes', true]], "the store's indexes are background work");
  const search = await fetch(`${again.url}/api/v1/users/search?q=roo`);
  t.same(((await search.json()) as { data: Array<{ login: string }> }).data.map((u) => u.login), ['root'], 'and serve once built');
});
