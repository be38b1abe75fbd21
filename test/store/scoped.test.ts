// Each plugin's `ctx.store` reaches only the collections it declares: another plugin's collection fails loudly.
import t from 'tap';
import { definePlugin } from '../../core/plugin.js';
import { collectionOwners, scopedStore, StoreScopeError } from '../../core/store/scoped.js';
import { startForge } from '../helpers/forge.js';
import { openEmbedded, removeDir, tempDir } from './helpers.js';

t.test('scopedStore', async (t) => {
  const dir = await tempDir();
  const store = await openEmbedded(dir);
  t.teardown(async () => {
    await store.close();
    await removeDir(dir);
  });
  const owners = collectionOwners([{ name: 'notes', collections: [{ name: 'notes' }] }, { name: 'tags', collections: [{ name: 'tags' }] }]);
  t.same([...owners], [['notes', 'notes'], ['tags', 'tags']]);
  await store.ensureCollection({ name: 'notes' });
  await store.ensureCollection({ name: 'tags' });
  const notes = scopedStore(store, 'notes', owners);

  await notes.collection('notes').insertOne({ id: 1 });
  t.same(await store.collection('notes').count({}), 1, 'its own collection is the real one');
  t.equal(await notes.nextId('notes'), 1, 'ids of its own collection');
  t.equal(await notes.nextId('notes:per-thread:7'), 1, 'any sequence that is not another plugin\'s collection');
  t.equal(notes.kind, store.kind);

  t.throws(() => notes.collection('tags'), { name: 'StoreScopeError', plugin: 'notes', collection: 'tags', owner: 'tags', message: /plugin "notes" opens collection "tags", which belongs to plugin "tags"/ });
  t.throws(() => notes.collection('stray'), { name: 'StoreScopeError', owner: null, message: /plugin "notes" opens collection "stray", which it does not declare/ });
  await t.rejects(notes.nextId('tags'), StoreScopeError, "another plugin's id sequence");
  await t.rejects(notes.drop('tags'), StoreScopeError);
  await t.rejects(notes.ensureCollection({ name: 'tags' }), StoreScopeError);
  await t.rejects(notes.close(), /cannot close the store/);
  await t.rejects(notes.open(), /cannot open the store/);
  t.equal(await store.collection('tags').count({}), 0, 'nothing reached the other collection');

  t.throws(() => collectionOwners([{ name: 'a', collections: [{ name: 'x' }] }, { name: 'b', collections: [{ name: 'x' }] }]),
    /collection "x" is declared by plugin "a" and by plugin "b"/);
});

t.test('through the kernel: a plugin reading another plugin\'s collection fails naming both', async (t) => {
  const reader = definePlugin({
    name: 'peek',
    dependencies: ['users'],
    collections: [{ name: 'peek_notes' }],
    routes: [
      {
        method: 'GET', path: '/peek/mine', auth: 'public',
        handler: async (rc) => ({ status: 200, body: { n: await rc.app.store.collection('peek_notes').count({}) } }),
      },
      {
        method: 'GET', path: '/peek/users', auth: 'public',
        handler: async (rc) => ({ status: 200, body: { n: await rc.app.store.collection('users').count({}) } }),
      },
    ],
  });
  const f = await startForge({ extraPlugins: [reader] });
  t.teardown(() => f.close());
  t.same((await f.request('GET', '/peek/mine')).json, { n: 0 }, 'its own collection');
  const res = await f.request('GET', '/peek/users');
  t.equal(res.status, 500, "another plugin's collection is a programming error, not a client's");

  const early = definePlugin({ name: 'early', dependencies: ['users'], start: (ctx) => void ctx.store.collection('users') });
  await t.rejects(startForge({ extraPlugins: [early] }), { name: 'StoreScopeError', message: /plugin "early" opens collection "users", which belongs to plugin "users"/ },
    'at start, the boot fails naming the plugin and the collection');

  const squatter = definePlugin({ name: 'squat', collections: [{ name: 'users' }] });
  await t.rejects(startForge({ extraPlugins: [squatter] }), /collection "users" is declared by plugin "users" and by plugin "squat"/, 'two owners of one collection stop the boot');
});
