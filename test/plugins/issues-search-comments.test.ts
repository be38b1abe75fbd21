// Issue search `q` matches comments as well as titles and bodies (Gitea's issue indexer does): in a repository's list
// and in /repos/issues/search, after title edits, comment edits and deletions, for issues stored by an earlier version
// (a start pass drops the trigrams they carried), and never for a repository the caller cannot read.
import t from 'tap';
import { startForge } from '../helpers/forge.js';
import { aliceWithPubAndPriv, issuesProbe } from '../helpers/issues-probe.js';
import { UPGRADES } from '../../plugins/issues/service.js';

t.test('q matches comments', async (t) => {
  const { held, plugin: probe } = issuesProbe('issues-probe');
  const f = await startForge({ extraPlugins: [probe] });
  t.teardown(() => f.close());
  const { alice, bob, req } = await aliceWithPubAndPriv(f);
  await req('POST', '/repos/alice/pub/issues', alice.token, { title: 'Crash on start', body: 'nothing to see' }, 201);
  await req('POST', '/repos/alice/pub/issues', alice.token, { title: 'Other', body: 'plain' }, 201);
  await req('POST', '/repos/alice/priv/issues', alice.token, { title: 'Secret', body: 'plain' }, 201);
  const c1 = await req('POST', '/repos/alice/pub/issues/1/comments', bob.token, { body: 'Stack trace mentions Quixotic-Frobnicator here' }, 201);
  await req('POST', '/repos/alice/priv/issues/1/comments', alice.token, { body: 'quixotic-frobnicator in private' }, 201);

  const numbers = async (path: string, token?: string) => (await req('GET', path, token)).map((i: any) => `${i.repository?.name ?? ''}#${i.number}`);
  t.same(await numbers('/repos/alice/pub/issues?q=quixotic-frob&state=all'), ['pub#1'], 'a repository list finds the issue by its comment');
  t.same(await numbers('/repos/issues/search?q=QUIXOTIC-FROB'), ['pub#1'], 'search: anonymous sees the public one only');
  t.same((await numbers('/repos/issues/search?q=quixotic-frob', alice.token)).sort(), ['priv#1', 'pub#1'], 'the owner sees both');
  t.same(await numbers('/repos/issues/search?q=quixotic-frob', bob.token), ['pub#1'], 'a stranger: never the private one');
  t.same(await numbers('/repos/alice/pub/issues?q=c-&state=all'), ['pub#1'], 'a 2-character query checks comments too');

  // A title edit keeps the comments searchable.
  await req('PATCH', '/repos/alice/pub/issues/1', alice.token, { title: 'Crash on boot' }, 201);
  t.same(await numbers('/repos/alice/pub/issues?q=frobnicator&state=all'), ['pub#1'], 'after a title edit');

  // An edited comment: the new text matches, the old one no longer does.
  await req('PATCH', `/repos/alice/pub/issues/comments/${c1.id}`, bob.token, { body: 'now about Zanzibar-Widgets' });
  t.same(await numbers('/repos/alice/pub/issues?q=zanzibar&state=all'), ['pub#1'], 'new comment text');
  t.same(await numbers('/repos/alice/pub/issues?q=quixotic&state=all'), [], 'old comment text: gone');
  t.equal((await f.request('GET', '/repos/issues/search?q=zanzibar')).headers.get('x-total-count'), '1', 'exact total');

  // A deleted comment no longer matches.
  t.equal((await f.request('DELETE', `/repos/alice/pub/issues/comments/${c1.id}`, { token: bob.token })).status, 204);
  t.same(await numbers('/repos/alice/pub/issues?q=zanzibar&state=all'), [], 'deleted comment');

  t.test('issues stored by an earlier version lose their stored trigrams at start, once', async (t) => {
    const c2 = await req('POST', '/repos/alice/pub/issues/2/comments', bob.token, { body: 'legacy Marmalade-Token' }, 201);
    t.ok(c2.id);
    const service = held.issues;
    // As stored by the previous version: the trigrams in the document.
    const issue = await service.issues.findOne({ number: 2, title: 'Other' });
    await service.issues.updateOne({ id: issue.id }, { $set: { grams: ['oth', 'the', 'her'], commentGrams: ['leg', 'ega'] } });
    // This server's start already ran the pass and marked it done: a later start skips it without reading issues.
    t.equal(await service.dropStoredGrams(), 0, 'marked done at start: skipped');
    const upgrades = service.ctx.store.collection(UPGRADES);
    t.equal(await upgrades.deleteMany({ name: 'drop-stored-grams' }), 1, 'the start left its marker');
    t.equal(await service.dropStoredGrams(), 1, 'the pass found the one issue that had them');
    const after = await service.issues.findOne({ id: issue.id });
    t.notOk('grams' in after || 'commentGrams' in after, 'gone from the document');
    t.same(await numbers('/repos/alice/pub/issues?q=marmalade&state=all'), ['pub#2'], 'its comment still matches (the index is in memory)');
    t.equal(await service.dropStoredGrams(), 0, 'once finished, not again');
  });
});
