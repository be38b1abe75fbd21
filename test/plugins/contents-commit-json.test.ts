// Commit list pages are joined from per-commit texts kept between requests (plugins/contents/commit-json.ts): every
// listed commit must equal the single-commit answer (built fresh) for the same caller and options, also after what a
// commit shows around it changes — the author's account (name, email visibility), the caller, the options.
import t, { type Test } from 'tap';
import { startForge, type TestForge } from '../helpers/forge.js';
import type { ContentsPluginService } from '../../plugins/contents/index.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

t.test('commit lists from kept texts', async (t) => {
  const f: TestForge = await startForge();
  t.teardown(() => f.close());
  const alice = await f.createUser({ username: 'cj-alice', email: 'cj-alice@example.com' });
  const bob = await f.createUser({ username: 'cj-bob' });
  t.equal((await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'kept' } })).status, 201);
  const R = '/repos/cj-alice/kept';
  for (let i = 0; i < 4; i++) {
    const res = await f.request('POST', `${R}/contents/f${i}.txt`, { token: alice.token, json: { content: b64(`${i}\n`.repeat(i + 1)), message: `file ${i}` } });
    t.equal(res.status, 201);
  }
  const cache = (f.forge.service('contents') as unknown as ContentsPluginService).contents.commitJson;

  /** Each listed commit against GET /git/commits/{sha} with the same query, for one caller. */
  async function sameAsSingle(t: Test, label: string, token: string | undefined, query = '') {
    const list = await f.request('GET', `${R}/commits?limit=10${query}`, { token });
    t.equal(list.status, 200, `${label}: list`);
    t.equal(list.headers.get('x-total-count'), '4');
    t.equal(list.json.length, 4);
    for (const item of list.json) {
      const single = await f.request('GET', `${R}/git/commits/${item.sha}${query ? `?${query.slice(1)}` : ''}`, { token });
      t.same(item, single.json, `${label}: ${item.commit.message.trim()} equals the single commit`);
    }
    return list.json;
  }

  const first = await sameAsSingle(t, 'anonymous', undefined);
  t.equal(first[0].author.login, 'cj-alice', 'the author email belongs to an account: its User object');
  const builds = cache.builds;
  const again = await f.request('GET', `${R}/commits?limit=10`);
  t.same(again.json, first, 'the same page again');
  t.equal(cache.builds, builds, 'served from the kept texts: nothing serialised again');

  const own = await sameAsSingle(t, 'the author', alice.token);
  t.equal(own[0].author.email, 'cj-alice@example.com', 'the author sees the own email');
  await sameAsSingle(t, 'another user', bob.token);
  await sameAsSingle(t, 'a site admin', f.admin.token);

  t.equal((await f.request('PATCH', '/admin/users/cj-alice', { token: f.admin.token, json: { full_name: 'Alice Renamed' } })).status, 200);
  const renamed = await sameAsSingle(t, 'after the account changed', undefined);
  t.equal(renamed[0].author.full_name, 'Alice Renamed', 'the changed account shows at once');

  const hidden = await f.request('PATCH', '/user/settings', { token: alice.token, json: { hide_email: true } });
  t.equal(hidden.status, 200);
  await sameAsSingle(t, 'email hidden, another user', bob.token);
  await sameAsSingle(t, 'email hidden, the author', alice.token);

  await sameAsSingle(t, 'stat=false', undefined, '&stat=false');
  await sameAsSingle(t, 'files=false', undefined, '&files=false');
  await sameAsSingle(t, 'verification=false', undefined, '&verification=false');
  const bare = await f.request('GET', `${R}/commits?limit=10&stat=false&files=false`);
  t.equal(bare.json[0].files, null, 'files=false: no files');
  t.equal(bare.json[0].stats, null, 'stat=false: no stats');
});
