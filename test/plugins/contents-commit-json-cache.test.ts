// CommitJsonCache on its own: the kept-text count stays within the capacity (whole repositories dropped, oldest
// first), an entry is reused only for the same URL base, options, accounts' texts and verification, and a text is
// the serialisation of what it shows.
import t from 'tap';
import { CommitJsonCache } from '../../plugins/contents/commit-json.js';
import { unsignedVerification, type View } from '../../plugins/contents/convert.js';
import type { ParsedCommit } from '../../plugins/contents/git-read.js';
import type { Account, UsersService } from '../../schemas/services.js';

const commit = (n: number, email = 'a@example.com'): ParsedCommit => ({
  sha: n.toString(16).padStart(40, '0'), tree: 'f'.repeat(40), parents: [], message: `c${n}\n`, signature: null, payload: '',
  author: { name: 'A', email, date: '2026-01-01T00:00:00Z', unix: 1767225600 }, committer: { name: 'A', email, date: '2026-01-01T00:00:00Z', unix: 1767225600 },
});
const view = (repo: string): View => ({ api: `http://x/api/v1/repos/o/${repo}`, html: `http://x/o/${repo}` });

t.test('capacity, reuse and what a text shows', async (t) => {
  let name = 'alice';
  const users = {
    jsonText: (a: Account) => JSON.stringify({ login: name, id: a.id }),
    toApi: (a: Account) => ({ login: name, id: a.id }),
  } as unknown as UsersService;
  const account = { id: 7, type: 'user' } as unknown as Account;
  const accounts = new Map([['a@example.com', account]]);
  const cache = new CommitJsonCache((v) => JSON.stringify(v), 5);
  const opts = { stat: false, files: false };
  const text = (repo: string, n: number, o = opts, v = unsignedVerification()) => JSON.parse(cache.text(view(repo), commit(n), null, o, v, accounts, users, null));

  const first = text('r1', 1);
  t.equal(first.sha, commit(1).sha);
  t.equal(first.html_url, `http://x/o/r1/commit/${commit(1).sha}`);
  t.same(first.author, { login: 'alice', id: 7 });
  t.equal(cache.builds, 1);
  text('r1', 1);
  t.equal(cache.builds, 1, 'the same again: reused');
  text('r2', 1);
  t.equal(cache.builds, 2, 'another repository (another URL base): its own text');
  text('r1', 1, { stat: true, files: false });
  t.equal(cache.builds, 3, 'other options: their own text');
  text('r1', 1, opts, { ...unsignedVerification(), verified: true, reason: '' });
  t.equal(cache.builds, 4, 'another verification: rebuilt');
  name = 'alice2';
  t.equal(text('r1', 1).author.login, 'alice2', 'the account text changed: rebuilt with it');
  t.equal(cache.builds, 5);
  t.equal(cache.size, 3, 'one entry per repository, commit and options (a rebuilt one replaces its slot)');

  for (let n = 2; n <= 4; n++) text('r3', n);
  t.ok(cache.size <= 5, `within the capacity (${cache.size})`);
  t.equal(text('r3', 4).sha, commit(4).sha, 'the newest repository is kept');
  const builds = cache.builds;
  text('r3', 4);
  t.equal(cache.builds, builds, 'still reused after the older repositories went');
  text('r1', 1);
  t.equal(cache.builds, builds + 1, 'an evicted repository is built again');
  t.ok(cache.size <= 5);
});
