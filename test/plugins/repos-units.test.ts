// Pure logic of the repos plugin: name rules, the permission rule, n-grams and query plans, list windows.
import t from 'tap';
import { checkBranchName, checkRepoName } from '../../plugins/repos/names.js';
import { ANONYMOUS, modeOf, permissionsOf, type Grants } from '../../plugins/repos/access.js';
import { gramsOf, lookupGrams, rarestGram, trigramsOf } from '../../plugins/lib/grams.js';
import { compareLight, mergeWindow, orderTies, sliceSorted } from '../../plugins/repos/listing.js';
import { repoUrls, sshUrl } from '../../plugins/repos/convert.js';
import { ACCESS } from '../../schemas/services.js';

t.test('repository names', async (t) => {
  for (const ok of ['a', 'repo', 'My-Repo_1.0', 'x'.repeat(100), '.hidden', 'git', 'wiki', 'a.gitx']) {
    t.equal(checkRepoName(ok), null, `${ok} is accepted`);
  }
  const bad: Array<[string, RegExp]> = [
    ['', /empty/], ['x'.repeat(101), /100/], ['.', /reserved/], ['..', /reserved/], ['a b', /letters/],
    ['a/b', /letters/], ['ü', /letters/], ['repo.git', /\.git/], ['Repo.GIT', /\.git/], ['r.wiki', /\.wiki/],
    ['%', /letters/], ['a\u0000', /letters/],
  ];
  for (const [name, reason] of bad) t.match(checkRepoName(name), reason, JSON.stringify(name));
});

t.test('branch names', async (t) => {
  for (const ok of ['master', 'main', 'release/1.0', 'feature-x', 'v1.2.3']) t.equal(checkBranchName(ok), null, ok);
  for (const bad of ['', 'a b', 'a..b', '/a', 'a/', 'a.', 'a.lock', '.a', 'a~1', 'a^', 'a:b', 'a?', 'a*', 'a[', 'a\\b', '@', 'a@{1}', 'a//b', '-a']) {
    t.not(checkBranchName(bad), null, JSON.stringify(bad));
  }
});

t.test('access modes', async (t) => {
  const pub = { id: 1, ownerId: 10, private: false };
  const priv = { id: 2, ownerId: 10, private: true };
  t.equal(modeOf(ANONYMOUS, pub), ACCESS.read, 'public: read for anonymous');
  t.equal(modeOf(ANONYMOUS, priv), ACCESS.none, 'private: nothing for anonymous');
  const grants = (over: Partial<Grants>): Grants => ({ userId: 5, admin: false, ownerModes: new Map(), repoModes: new Map(), ...over });
  t.equal(modeOf(grants({ admin: true }), priv), ACCESS.owner, 'site admin: owner');
  t.equal(modeOf(grants({ ownerModes: new Map([[10, ACCESS.owner]]) }), priv), ACCESS.owner, 'owner');
  t.equal(modeOf(grants({ ownerModes: new Map([[10, ACCESS.write]]) }), priv), ACCESS.write, 'all-repositories team');
  t.equal(modeOf(grants({ repoModes: new Map([[2, ACCESS.read]]) }), priv), ACCESS.read, 'collaborator');
  t.equal(modeOf(grants({ repoModes: new Map([[1, ACCESS.read]]) }), priv), ACCESS.none, 'a grant on another repo');
  t.equal(modeOf(grants({ ownerModes: new Map([[10, ACCESS.read]]), repoModes: new Map([[2, ACCESS.admin]]) }), priv), ACCESS.admin, 'highest wins');
  t.same(permissionsOf(ACCESS.none), { admin: false, push: false, pull: false });
  t.same(permissionsOf(ACCESS.read), { admin: false, push: false, pull: true });
  t.same(permissionsOf(ACCESS.write), { admin: false, push: true, pull: true });
  t.same(permissionsOf(ACCESS.admin), { admin: true, push: true, pull: true });
  t.same(permissionsOf(ACCESS.owner), { admin: true, push: true, pull: true });
});

t.test('n-grams and query plans', async (t) => {
  t.same(gramsOf('abca').sort(), ['a', 'ab', 'abc', 'b', 'bc', 'bca', 'c', 'ca'].sort(), 'distinct 1..3-grams');
  t.same(gramsOf(''), []);
  t.same(trigramsOf('abcab'), ['abc', 'bca', 'cab']);
  t.same(lookupGrams('ab'), ['ab'], 'short query: itself');
  t.same(lookupGrams('abc'), ['abc']);
  t.same(lookupGrams('a.*b'), ['a.*', '.*b'], 'metacharacters are plain characters');
  t.equal(rarestGram(['abc', 'bcd', 'cde'], new Map([['abc', 50], ['bcd', 3], ['cde', 9]])), 'bcd');
  t.equal(rarestGram(['abc', 'bcd'], new Map([['abc', 50]])), 'bcd', 'an unknown gram has no documents');
  // Every substring of a name of length ≤ 3 is one of its grams; longer substrings contain its trigrams.
  const name = 'forge-kit.core';
  const grams = new Set(gramsOf(name));
  for (let i = 0; i < name.length; i++) {
    for (let j = i + 1; j <= name.length; j++) {
      const q = name.slice(i, j);
      for (const g of lookupGrams(q)) t.ok(grams.has(g), `${q} → ${g}`);
    }
  }
});

t.test('list windows', async (t) => {
  const L = (id: number, lowerName: string) => ({ id, lowerName });
  t.ok(compareLight(L(1, 'a'), L(2, 'b')) < 0);
  t.ok(compareLight(L(3, 'a'), L(2, 'a')) > 0, 'ties by id');
  const all = [L(1, 'alpha'), L(2, 'bravo'), L(3, 'charlie'), L(4, 'delta'), L(5, 'echo'), L(6, 'foxtrot'), L(7, 'golf')];
  const extras = [L(4, 'delta'), L(7, 'golf')];
  const primary = all.filter((r) => r.id !== 4 && r.id !== 7);
  for (let skip = 0; skip < 8; skip++) {
    for (let limit = 1; limit < 4; limit++) {
      const head = primary.slice(0, skip + limit);
      const got = mergeWindow(head, primary.length, extras, skip, limit);
      t.same(got.items.map((r) => r.id), all.slice(skip, skip + limit).map((r) => r.id), `skip ${skip} limit ${limit}`);
      t.equal(got.total, 7);
    }
  }
  t.same(sliceSorted([L(2, 'b'), L(1, 'a')], 1, 5), { ids: [2], total: 2 });
});

t.test('list windows against a model: tied names, extras in any order, the inputs themselves returned', async (t) => {
  let seed = 20261206;
  const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const names = ['app', 'app', 'api', 'b', 'core', 'core', 'core', 'docs', 'z'];
  let checks = 0;
  for (let round = 0; round < 300; round++) {
    const n = Math.floor(random() * 40);
    const all = Array.from({ length: n }, (_, i) => ({ id: 1 + Math.floor(random() * 1000) * 64 + i, lowerName: names[Math.floor(random() * names.length)]! }));
    const model = [...all].sort(compareLight);
    const isExtra = all.map(() => random() < 0.2);
    const extras = all.filter((_, i) => isExtra[i]);
    // The store's order: by name only, ties in any order; orderTies settles them by id.
    const primary = all.filter((_, i) => !isExtra[i]).sort((a, b) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : random() - 0.5));
    const primarySorted = orderTies([...primary]);
    const wantPrimary = model.filter((r) => !extras.includes(r));
    if (primarySorted.some((r, i) => r !== wantPrimary[i])) {
      t.fail(`round ${round}: orderTies`);
      return;
    }
    const skip = Math.floor(random() * (n + 2));
    const limit = 1 + Math.floor(random() * 12);
    const got = mergeWindow(primarySorted.slice(0, skip + limit), primary.length, extras, skip, limit);
    const want = model.slice(skip, skip + limit);
    if (got.total !== n || got.items.length !== want.length || got.items.some((r, i) => r !== want[i])) {
      t.same(got.items, want, `round ${round}: skip ${skip} limit ${limit}`);
      return;
    }
    checks++;
  }
  t.equal(checks, 300, '300 random pages equal the model, item for item');
});

t.test('clone URLs', async (t) => {
  const def = repoUrls('http://forge.example:3000/', { domain: '', port: 22, user: 'git' });
  t.equal(sshUrl(def, 'o/r'), 'git@forge.example:o/r.git', 'port 22: scp-like form, domain from the root URL');
  const custom = repoUrls('http://forge.example/', { domain: 'ssh.example', port: 2222, user: 'forge' });
  t.equal(sshUrl(custom, 'o/r'), 'ssh://forge@ssh.example:2222/o/r.git');
});
