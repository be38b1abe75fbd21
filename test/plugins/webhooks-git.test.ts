// Webhooks from real pushes: the git client pushes commits, branches and tags over smart HTTP and the API writes a
// file; a real receiver gets Gitea's push, create and delete payloads, signed, in order.
import { createHmac } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { WebhooksService } from '../../schemas/contracts/webhooks.js';
import { startForge } from '../helpers/forge.js';
import { runGit, withAuth } from '../helpers/git-client.js';
import { Receiver, type Received } from '../helpers/receiver.js';

const COMMIT_FIELDS = ['id', 'message', 'url', 'author', 'committer', 'verification', 'timestamp', 'added', 'removed', 'modified'];

t.test('webhooks from git pushes and API file writes', async (t) => {
  const rx = await new Receiver().start();
  const f = await startForge({ config: { plugins: { webhooks: { allowedHostList: 'loopback' } } } as any });
  const home = await mkdtemp(path.join(os.tmpdir(), 'forgekit-hook-git-'));
  t.teardown(async () => {
    await f.close();
    await rx.close();
    await rm(home, { recursive: true, force: true });
  });
  const alice = await f.createUser();
  const repo = (await f.request('POST', '/user/repos', { token: alice.token, json: { name: 'pushy', auto_init: true, readme: 'Default' } })).json;
  const hook = await f.request('POST', `/repos/${repo.full_name}/hooks`, {
    token: alice.token, json: { type: 'gitea', active: true, events: ['push', 'create', 'delete'], config: { url: `${rx.url}/git`, content_type: 'json', secret: 'git-secret' } },
  });
  t.equal(hook.status, 201);
  const webhooks = f.forge.service<WebhooksService>('webhooks');
  const work = path.join(home, 'work');
  const git = async (...args: string[]) => {
    const res = await runGit(args, { home, cwd: work });
    if (res.code !== 0) throw new Error(`git ${args.join(' ')}: ${res.stderr}`);
    return res.stdout.trim();
  };
  const clone = await runGit(['clone', withAuth(`${f.url}/${repo.full_name}.git`, alice.username, alice.token), work], { home });
  t.equal(clone.code, 0, clone.stderr);
  /** The `n` deliveries received after the first `before` (count taken before the action that causes them). */
  const next = async (before: number, n: number): Promise<Received[]> => {
    const got = (await rx.count(before + n)).slice(before);
    await webhooks.idle();
    t.equal(rx.received.length, before + n, `exactly ${n} deliveries`);
    for (const r of got) {
      t.equal(r.headers['x-gitea-signature'], createHmac('sha256', 'git-secret').update(r.body).digest('hex'));
      t.equal(r.headers['x-gitea-event'], r.headers['x-gitea-event-type']);
    }
    return got;
  };

  t.test('a push to master: Gitea PushPayload with the commit and its files', async (t) => {
    const before = rx.received.length;
    const old = await git('rev-parse', 'HEAD');
    await writeFile(path.join(work, 'new.txt'), 'hello\n');
    await git('add', 'new.txt');
    await git('commit', '-q', '-m', 'add new');
    const sha = await git('rev-parse', 'HEAD');
    await git('push', '-q', 'origin', 'master');
    const [push] = await next(before, 1);
    t.equal(push!.headers['x-gitea-event'], 'push');
    const p = JSON.parse(push!.body);
    t.match(p, { ref: 'refs/heads/master', before: old, after: sha, total_commits: 1, compare_url: `${f.url}/${repo.full_name}/compare/${old}...${sha}` });
    for (const k of COMMIT_FIELDS) t.ok(k in p.commits[0], `commit.${k}`);
    t.match(p.commits[0], { id: sha, message: /^add new/, added: ['new.txt'], removed: [], modified: [], author: { name: 'Test Author', email: 'author@example.com' } });
    t.same(p.head_commit, p.commits[0]);
    t.equal(p.pusher.login, alice.username);
    t.equal(p.sender.login, alice.username);
    // Gitea's payload users (ToUser without a doer) carry the placeholder address, never the hidden one.
    const host = new URL(f.url).hostname;
    t.equal(p.pusher.email, `${alice.username.toLowerCase()}@noreply.${host}`, 'pusher: the no-reply address');
    t.equal(p.sender.email, p.pusher.email);
    t.equal(p.repository.owner.email, p.pusher.email, "the repository's owner too (the owner's view would show the address)");
    t.notMatch(push!.body, alice.email, 'the account email appears nowhere in the payload');
    t.equal(p.repository.full_name, repo.full_name);
  });

  t.test('a new branch: create, then push', async (t) => {
    const before = rx.received.length;
    await git('checkout', '-q', '-b', 'feature');
    await writeFile(path.join(work, 'f.txt'), 'f\n');
    await git('add', 'f.txt');
    await git('commit', '-q', '-m', 'feature work');
    const sha = await git('rev-parse', 'HEAD');
    await git('push', '-q', 'origin', 'feature');
    const [create, push] = await next(before, 2);
    t.equal(create!.headers['x-gitea-event'], 'create');
    t.match(JSON.parse(create!.body), { ref: 'feature', ref_type: 'branch', sha });
    t.equal(push!.headers['x-gitea-event'], 'push');
    t.match(JSON.parse(push!.body), { ref: 'refs/heads/feature', before: '0'.repeat(40), after: sha, compare_url: '' });
  });

  t.test('a tag: create (tag) and push', async (t) => {
    const before = rx.received.length;
    await git('tag', 'v1.0');
    await git('push', '-q', 'origin', 'v1.0');
    const [create, push] = await next(before, 2);
    t.match(JSON.parse(create!.body), { ref: 'v1.0', ref_type: 'tag' });
    t.match(JSON.parse(push!.body), { ref: 'refs/tags/v1.0' });
  });

  t.test('deleting a branch: only the delete event, like Gitea', async (t) => {
    const before = rx.received.length;
    await git('push', '-q', 'origin', ':feature');
    const [del] = await next(before, 1);
    t.equal(del!.headers['x-gitea-event'], 'delete');
    t.match(JSON.parse(del!.body), { ref: 'feature', ref_type: 'branch', pusher_type: 'user' });
    t.equal(await f.forge.store.collection('webhook_deliveries').count({ hookId: hook.json.id, state: 'pending' }), 0);
  });

  t.test('an API file write is a push too', async (t) => {
    const before = rx.received.length;
    const res = await f.request('POST', `/repos/${repo.full_name}/contents/api.txt`, {
      token: alice.token, json: { content: Buffer.from('via api\n').toString('base64'), message: 'write through the API' },
    });
    t.equal(res.status, 201);
    const [push] = await next(before, 1);
    const p = JSON.parse(push!.body);
    t.match(p, { ref: 'refs/heads/master', total_commits: 1 });
    t.match(p.commits[0], { message: /^write through the API/, added: ['api.txt'] });
  });
});
