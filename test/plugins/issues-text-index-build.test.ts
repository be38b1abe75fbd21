// The `q` trigram index is built in the background after start: while it is built the server answers `q` searches
// by checking texts itself (the same answers), changes made meanwhile are noted and indexed once the snapshot's
// postings are in place, and the finished index equals one built from the store afterwards, pair for pair. The build
// is held at each of its pauses in turn (a test pause), with creates, edits, comments and deletions made there.
import t from 'tap';
import { startForge, jsonCaller } from '../helpers/forge.js';
import { issuesProbe } from '../helpers/issues-probe.js';
import { gramKeys, IssueTextIndex, lowerBound, yieldAfter } from '../../plugins/issues/text-index.js';

const WORDS = ['crash', 'boot', 'token', 'cache', 'ünïcode', 'frob', 'tea', 'gizmo', 'widget'];

t.test('lowerBound and yieldAfter', async (t) => {
  const a = [1, 3, 3, 5, 9];
  for (const x of [0, 1, 2, 3, 4, 5, 9, 10]) t.equal(lowerBound(a.length, (k) => a[k]! < x), a.findIndex((v) => v >= x) === -1 ? a.length : a.findIndex((v) => v >= x), `first ≥ ${x}`);
  t.equal(lowerBound(0, () => true), 0);
  const pause = yieldAfter(1_000_000);
  let turned = false;
  setImmediate(() => { turned = true; });
  await pause();
  t.equal(turned, false, 'before its time a pause gives no turn');
  const eager = yieldAfter(0);
  setImmediate(() => { turned = true; });
  await new Promise((r) => setTimeout(r, 2));
  turned = false;
  setImmediate(() => { turned = true; });
  await eager();
  t.equal(turned, true, 'after it, the event loop turns (setImmediate callbacks run)');

  // A long turn (another task of 200 ms) makes the next slice as long: the build keeps half of the time. The margins
  // are wide (wall-clock time): only a pause of this process for 190 ms would turn the first answer.
  const busy = (ms: number) => { const until = performance.now() + ms; while (performance.now() < until); };
  const fair = yieldAfter(1);
  await new Promise((r) => setTimeout(r, 2));
  setImmediate(() => busy(200));
  await fair();
  turned = false;
  setImmediate(() => { turned = true; });
  busy(10);
  await fair();
  t.equal(turned, false, 'after a 200 ms turn, 10 ms of work is not yet a slice');
  busy(400); // well past the 200 ms turn (a busy machine may have stretched it a little)
  await fair();
  t.equal(turned, true, 'after 410 ms it is');
});

t.test('changes and searches while the index is built', async (t) => {
  const { held, plugin: probe } = issuesProbe('issues-build-probe');
  const f = await startForge({ extraPlugins: [probe] });
  t.teardown(() => f.close());
  const service = held.issues;
  await service.textIndexReady;
  const alice = await f.createUser({ username: 'alice' });
  const call = jsonCaller(f);
  const req = (method: string, path: string, json?: unknown, status = 200) => call(method, path, alice.token, json, status);
  const words = (k: number, n: number) => Array.from({ length: n }, (_, i) => WORDS[(k * 7 + i * 3) % WORDS.length]).join(' ');
  for (const repo of ['one', 'two', 'three']) {
    await req('POST', '/user/repos', { name: repo }, 201);
    for (let k = 0; k < 6; k++) {
      const issue = await req('POST', `/repos/alice/${repo}/issues`, { title: `${repo} ${words(k, 2)}`, body: words(k + 1, 3) }, 201);
      if (k % 2 === 0) await req('POST', `/repos/alice/${repo}/issues/${issue.number}/comments`, { body: `comment ${words(k + 2, 2)}` }, 201);
    }
  }
  const queries = [...WORDS, 'comment', 'fresh', 'renamed', 'zebra', 'quokka', 'one ', 'three'];
  /** Every query's answer, cross-repository and in one repository: numbers and titles, in order. */
  const answers = async () => {
    const out: Record<string, unknown> = {};
    for (const q of queries) {
      const all = await req('GET', `/repos/issues/search?q=${encodeURIComponent(q)}&state=all&limit=50`);
      const one = await req('GET', `/repos/alice/one/issues?q=${encodeURIComponent(q)}&state=all&limit=50`);
      out[q] = [all.map((i: any) => `${i.repository.name}#${i.number} ${i.title}`), one.map((i: any) => `#${i.number} ${i.title}`)];
    }
    return out;
  };
  /** The index the server holds equals one built from the store now. */
  const equalsFresh = async (label: string) => {
    const fresh = new IssueTextIndex();
    await service.buildTextIndex.call(Object.create(service, { textIndex: { value: fresh }, textBuild: { value: null, writable: true } }));
    for (const part of ['text', 'comments'] as const) {
      t.equal(service.textIndex[part].stats().pairs, fresh[part].stats().pairs, `${label}: ${part} pairs`);
      for (const w of [...WORDS, 'fresh', 'renamed', 'zebra', 'quokka']) {
        const keys = [...gramKeys(w)];
        t.same([...service.textIndex[part].holdingAll(keys)], [...fresh[part].holdingAll(keys)], `${label}: ${part} "${w}"`);
      }
    }
  };

  let round = 0;
  // Pause 1: the titles and bodies read, nothing replaced; 2: titles and bodies in place, comments read; 3: the
  // first catch-up pass done (changes made there need a second pass).
  for (const holdAt of [1, 2, 3]) {
    round++;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    let reached!: () => void;
    const atHold = new Promise<void>((resolve) => { reached = resolve; });
    let pauses = 0;
    let early: Promise<unknown> = Promise.resolve();
    const building = service.buildTextIndex(async () => {
      if (++pauses === 1) await early;
      if (pauses === holdAt) {
        reached();
        await gate;
      }
    });
    // Round 3: a change the build notes before its pause 1, so that there is a catch-up pass to hold it after.
    if (holdAt === 3) early = req('PATCH', `/repos/alice/two/issues/1`, { body: `zebra fresh ${round}` }, 201);
    await atHold;
    t.ok(service.textBuild, `round ${round}: held while building`);
    const fresh = await req('POST', '/repos/alice/one/issues', { title: `fresh quokka ${round}`, body: 'tea gizmo' }, 201);
    await req('POST', `/repos/alice/one/issues/${fresh.number}/comments`, { body: `zebra ${round}` }, 201);
    await req('PATCH', `/repos/alice/one/issues/${round}`, { title: `renamed ${round}` }, 201);
    await req('PATCH', `/repos/alice/three/issues/${round}`, { body: `quokka body ${round}` }, 201);
    const comments = await req('GET', `/repos/alice/one/issues/1/comments`);
    if (comments.length) {
      await req('PATCH', `/repos/alice/one/issues/comments/${comments[0].id}`, { body: `comment edited widget ${round}` });
      const more = await req('POST', `/repos/alice/one/issues/1/comments`, { body: `crash zebra ${round}` }, 201);
      t.equal((await f.request('DELETE', `/repos/alice/one/issues/comments/${more.id}`, { token: alice.token })).status, 204);
    }
    t.equal((await f.request('DELETE', `/repos/alice/one/issues/${round + 3}`, { token: alice.token })).status, 204);
    // A repository made while one build runs and deleted while the next one holds comments not yet in place.
    if (holdAt === 1) {
      await req('POST', '/user/repos', { name: 'doomed' }, 201);
      await req('POST', '/repos/alice/doomed/issues', { title: 'doomed gizmo', body: 'zebra' }, 201);
      await req('POST', '/repos/alice/doomed/issues/1/comments', { body: 'doomed quokka widget' }, 201);
    }
    if (holdAt === 2) t.equal((await f.request('DELETE', '/repos/alice/doomed', { token: alice.token })).status, 204);
    await new Promise((r) => setTimeout(r, 20));
    const during = await answers();
    t.ok(service.textBuild, `round ${round}: the searches were answered while the index was not in use`);
    release();
    await building;
    t.equal(service.textBuild, null, `round ${round}: the index is in use`);
    t.same(await answers(), during, `round ${round}: the same answers from the index as from the texts`);
    t.ok((during['quokka'] as string[][])[0]!.some((r) => r.includes(`fresh quokka ${round}`)), `round ${round}: a new issue found by its title while building`);
    await equalsFresh(`round ${round}`);
  }

  // Stopping (or a failure) ends a build at its next pause; its half-built index is not put in use.
  const before = await answers();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => { release = resolve; });
  const building = service.buildTextIndex(async () => {
    await gate;
    await service.textIndex.text.replaceWith(new Map()); // as if half of it were replaced
  });
  service.stopTextIndex();
  release();
  await t.rejects(building, /stopped while building/);
  t.ok(service.textBuild, 'the index stays out of use');
  t.same(await answers(), before, 'q searches check texts themselves, with the same answers');
});
