// repoByName: a repository by owner and lower-case name, through the `ownerKey` index, and by the `{ownerId,
// lowerName}` tuple for a repository stored without the key (made before it existed).
import t from 'tap';
import { ownerKeyOf, repoByName } from '../../plugins/repos/by-name.js';
import { REPO_INDEXES } from '../../plugins/repos/service.js';
import type { RepoRecord } from '../../schemas/services.js';
import { openEmbedded, removeDir, tempDir } from '../store/helpers.js';

t.test('found through the key, or the tuple when the key is missing; a miss is null', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const store = await openEmbedded(dir);
  t.teardown(() => store.close());
  await store.ensureCollection({ name: 'repos', indexes: REPO_INDEXES });
  const repos = store.collection<RepoRecord>('repos');
  const keyed = { id: 1, ownerId: 7, name: 'App', lowerName: 'app', ownerKey: ownerKeyOf(7, 'app'), private: false } as unknown as RepoRecord;
  const legacy = { id: 2, ownerId: 7, name: 'Old', lowerName: 'old', private: false } as unknown as RepoRecord;
  const other = { id: 3, ownerId: 8, name: 'App', lowerName: 'app', ownerKey: ownerKeyOf(8, 'app'), private: false } as unknown as RepoRecord;
  await repos.insertMany([keyed, legacy, other]);
  t.equal((await repoByName(repos, 7, 'app'))?.id, 1, 'by its key');
  t.equal((await repoByName(repos, 8, 'app'))?.id, 3, 'the same name of another owner');
  t.equal((await repoByName(repos, 7, 'old'))?.id, 2, 'stored without a key: by the tuple');
  t.equal(await repoByName(repos, 7, 'none'), null, 'no such name');
  t.equal(await repoByName(repos, 9, 'app'), null, 'no such owner');
  t.same(await repos.explain({ ownerKey: ownerKeyOf(7, 'app') }), { index: 'ownerKey_1', examined: 1, returned: 1 }, 'the key is one index lookup');
});
