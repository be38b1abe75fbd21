// topics plugin through HTTP: list/replace/add/delete with Gitea's validation and limits, the permission matrix
// (readers list, repository admins change, strangers of private repositories get 404), Repository.topics, and
// /topics/search counts that follow replaces, privacy changes and deletions without leaking private repositories.
import t from 'tap';
import { startForge, type TestForge, type TestUser } from '../helpers/forge.js';

async function createRepo(f: TestForge, user: TestUser, name: string, priv = false): Promise<any> {
  const res = await f.request('POST', '/user/repos', { token: user.token, json: { name, private: priv } });
  if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
  return res.json;
}

async function collaborate(f: TestForge, owner: TestUser, full: string, user: TestUser, permission: string): Promise<void> {
  const res = await f.request('PUT', `/repos/${full}/collaborators/${user.username}`, { token: owner.token, json: { permission } });
  if (res.status !== 204) throw new Error(`collaborator: ${res.status} ${res.text}`);
}

t.test('topics', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const alice = await createUser(f);
  const reader = await createUser(f);
  const writer = await createUser(f);
  const admin = await createUser(f);
  const stranger = await createUser(f);
  const pub = await createRepo(f, alice, 'pub');
  const priv = await createRepo(f, alice, 'priv', true);
  for (const r of [pub, priv]) {
    await collaborate(f, alice, r.full_name, reader, 'read');
    await collaborate(f, alice, r.full_name, writer, 'write');
    await collaborate(f, alice, r.full_name, admin, 'admin');
  }
  const search = async (q: string, token?: string) => (await f.request('GET', `/topics/search?q=${encodeURIComponent(q)}`, { token })).json.topics as any[];

  t.test('a new repository has no topics', async (t) => {
    const res = await f.request('GET', `/repos/${pub.full_name}/topics`);
    t.equal(res.status, 200);
    t.same(res.json, { topics: [] });
    t.equal(res.headers.get('x-total-count'), '0');
  });

  t.test('PUT replaces: trimmed, lower-cased, repeats and empties dropped; shown in Repository.topics', async (t) => {
    const res = await f.request('PUT', `/repos/${pub.full_name}/topics`, { token: alice.token, json: { topics: [' Go ', 'go', '', 'web.api', 'cli-tool'] } });
    t.equal(res.status, 204);
    t.same((await f.request('GET', `/repos/${pub.full_name}/topics`)).json, { topics: ['cli-tool', 'go', 'web.api'] });
    t.same((await f.request('GET', `/repos/${pub.full_name}`)).json.topics, ['cli-tool', 'go', 'web.api']);
    const page = await f.request('GET', `/repos/${pub.full_name}/topics?limit=2&page=2`);
    t.same(page.json, { topics: ['web.api'] });
    t.equal(page.headers.get('x-total-count'), '3');
  });

  t.test('validation: pattern, length, count (422, nothing stored)', async (t) => {
    const put = (topics: unknown) => f.request('PUT', `/repos/${pub.full_name}/topics`, { token: alice.token, json: { topics } });
    for (const bad of ['-lead', '.dot', 'has space', 'ünï', 'a'.repeat(36), 'under_score', 'slash/x']) {
      const res = await put(['ok', bad]);
      t.equal(res.status, 422, bad);
      t.match(res.json.message, /topics/);
    }
    t.equal((await put(['a'.repeat(35)])).status, 204, '35 characters are fine');
    t.equal((await put(Array.from({ length: 26 }, (_, i) => `t${i}`))).status, 422, '26 topics are too many');
    t.equal((await put(Array.from({ length: 25 }, (_, i) => `t${i}`))).status, 204, '25 are fine');
    t.equal((await f.request('PUT', `/repos/${pub.full_name}/topics/one-more`, { token: alice.token })).status, 422, 'the 26th added one by one');
    t.equal((await put('not-an-array')).status, 422);
    t.equal((await put(['go', 'cli-tool', 'web.api'])).status, 204);
    t.same((await f.request('GET', `/repos/${pub.full_name}/topics`)).json.topics, ['cli-tool', 'go', 'web.api']);
  });

  t.test('PUT/DELETE one topic', async (t) => {
    t.equal((await f.request('PUT', `/repos/${pub.full_name}/topics/Rust`, { token: alice.token })).status, 204);
    t.equal((await f.request('PUT', `/repos/${pub.full_name}/topics/rust`, { token: alice.token })).status, 204, 'adding twice is fine');
    t.same((await f.request('GET', `/repos/${pub.full_name}/topics`)).json.topics, ['cli-tool', 'go', 'rust', 'web.api']);
    t.equal((await f.request('PUT', `/repos/${pub.full_name}/topics/bad_name`, { token: alice.token })).status, 422);
    t.equal((await f.request('DELETE', `/repos/${pub.full_name}/topics/bad_name`, { token: alice.token })).status, 422);
    t.equal((await f.request('DELETE', `/repos/${pub.full_name}/topics/rust`, { token: alice.token })).status, 204);
    t.equal((await f.request('DELETE', `/repos/${pub.full_name}/topics/rust`, { token: alice.token })).status, 404, 'not there any more');
  });

  t.test('permission matrix', async (t) => {
    const cases: Array<[string, TestUser | null, number, number, number]> = [
      // who, caller, GET public, GET private, PUT on either (private: 404 for those who cannot read)
      ['anonymous', null, 200, 404, 401],
      ['stranger', stranger, 200, 404, 403],
      ['reader', reader, 200, 200, 403],
      ['writer', writer, 200, 200, 403],
      ['admin collaborator', admin, 200, 200, 204],
      ['owner', alice, 200, 200, 204],
      ['site admin', { token: f.admin.token } as TestUser, 200, 200, 204],
    ];
    for (const [who, caller, getPub, getPriv, change] of cases) {
      const token = caller?.token;
      t.equal((await f.request('GET', `/repos/${pub.full_name}/topics`, { token })).status, getPub, `${who} lists public`);
      t.equal((await f.request('GET', `/repos/${priv.full_name}/topics`, { token })).status, getPriv, `${who} lists private`);
      const privChange = getPriv === 404 && change !== 401 ? 404 : change;
      t.equal((await f.request('PUT', `/repos/${pub.full_name}/topics`, { token, json: { topics: ['go', 'cli-tool', 'web.api'] } })).status, change, `${who} replaces public`);
      t.equal((await f.request('PUT', `/repos/${priv.full_name}/topics/secret-sauce`, { token })).status, privChange, `${who} adds to private`);
      t.equal((await f.request('DELETE', `/repos/${pub.full_name}/topics/nothing-here`, { token })).status, change === 204 ? 404 : change, `${who} deletes from public`);
    }
    t.equal((await f.request('GET', '/repos/nobody/nothing/topics')).status, 404);
  });

  t.test('search: counts follow changes; private repositories count only for those who read everything', async (t) => {
    const other = await createRepo(f, stranger, 'other');
    t.equal((await f.request('PUT', `/repos/${other.full_name}/topics`, { token: stranger.token, json: { topics: ['go', 'secret-sauce'] } })).status, 204);
    let anon = await search('');
    t.same(anon.map((x) => [x.topic_name, x.repo_count]), [['go', 2], ['cli-tool', 1], ['secret-sauce', 1], ['web.api', 1]], 'most used first, ties by name');
    t.same((await search('SAUCE')).map((x) => [x.topic_name, x.repo_count]), [['secret-sauce', 1]], 'private repositories do not count for others');
    t.same((await search('sauce', f.admin.token)).map((x) => [x.topic_name, x.repo_count]), [['secret-sauce', 2]], 'site admins count every repository');
    t.same((await search('o')).map((x) => x.topic_name), ['go', 'cli-tool'], 'one-letter substring');
    t.same((await search('li-t')).map((x) => x.topic_name), ['cli-tool'], 'longer substring');
    t.same(await search('nothing-matches'), []);
    const one = anon[0];
    t.type(one.id, 'number');
    t.match(one.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    t.match(one.updated, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const paged = await f.request('GET', '/topics/search?limit=1&page=2');
    t.same(paged.json.topics.map((x: any) => x.topic_name), ['cli-tool']);
    t.equal(paged.headers.get('x-total-count'), '4');

    // The private repository goes public: its topics count for everyone; back private: they stop.
    t.equal((await f.request('PATCH', `/repos/${priv.full_name}`, { token: alice.token, json: { private: false } })).status, 200);
    t.same((await search('sauce')).map((x) => x.repo_count), [2]);
    t.equal((await f.request('PATCH', `/repos/${priv.full_name}`, { token: alice.token, json: { private: true } })).status, 200);
    t.same((await search('sauce')).map((x) => x.repo_count), [1]);

    // A deleted repository's topics stop counting; a topic nobody carries is not listed.
    t.equal((await f.request('DELETE', `/repos/${other.full_name}`, { token: stranger.token })).status, 204);
    anon = await search('');
    t.same(anon.map((x) => [x.topic_name, x.repo_count]), [['cli-tool', 1], ['go', 1], ['web.api', 1]]);
    t.same((await search('sauce', f.admin.token)).map((x) => x.repo_count), [1], 'the private repository still has it');
  });

  t.test('concurrent replaces leave exact counts', async (t) => {
    const r = await createRepo(f, alice, 'race');
    const sets = [['a1', 'b1'], ['b1', 'c1'], ['c1'], ['a1', 'c1', 'd1'], []];
    await Promise.all(Array.from({ length: 20 }, (_, i) =>
      f.request('PUT', `/repos/${r.full_name}/topics`, { token: alice.token, json: { topics: sets[i % sets.length] } })));
    const final = (await f.request('GET', `/repos/${r.full_name}/topics`)).json.topics as string[];
    for (const name of ['a1', 'b1', 'c1', 'd1']) {
      const found = (await search(name, f.admin.token)).find((x) => x.topic_name === name);
      t.equal(found?.repo_count ?? 0, final.includes(name) ? 1 : 0, `${name} counted exactly`);
    }
  });
});

async function createUser(f: TestForge): Promise<TestUser> {
  return f.createUser();
}
