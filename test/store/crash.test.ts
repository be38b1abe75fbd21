// Durability of the embedded store: a SIGKILLed writer loses no acknowledged write; a torn last line is dropped.
import t from 'tap';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { appendFile, readFile, rename, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { openEmbedded, recordingLogger, removeDir, tempDir } from './helpers.js';
import { nodeCommand } from '../helpers/child-env.js';

const CHILD = fileURLToPath(new URL('./crash-child.js', import.meta.url));

interface Acks {
  ids: number[];
  updated: number[];
  maxHits: number;
}

/** Runs the writer child until it has acknowledged `killAfter` inserts, then SIGKILLs it. */
async function runAndKill(dataDir: string, killAfter: number): Promise<Acks> {
  const child = spawn(...nodeCommand([CHILD, dataDir]), { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const acks: Acks = { ids: [], updated: [], maxHits: 0 };
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const rl = createInterface({ input: child.stdout });
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  for await (const line of rl) {
    const [kind, value] = line.split(' ');
    const n = Number(value);
    if (kind === 'ack') acks.ids.push(n);
    else if (kind === 'upd') acks.updated.push(n);
    else if (kind === 'hits') acks.maxHits = Math.max(acks.maxHits, n);
    if (acks.ids.length === killAfter) child.kill('SIGKILL');
  }
  clearTimeout(timer);
  const { signal } = await exited;
  if (signal !== 'SIGKILL') throw new Error(`the writer ended by itself (${signal}): ${stderr}`);
  return acks;
}

t.test('every acknowledged write survives SIGKILL', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  let total = 0;
  let lastMaxId = 0;
  // Several rounds on the same data: each restart also replays what the previous crash left.
  for (const killAfter of [150, 700, 1500]) {
    const acks = await runAndKill(dir, killAfter);
    t.ok(acks.ids.length >= killAfter, `round: ${acks.ids.length} inserts acknowledged before SIGKILL`);
    const log = recordingLogger();
    const store = await openEmbedded(dir, log);
    const items = store.collection('items');
    const present = new Set((await items.find({ id: { $gt: 0 } }, { projection: { id: 1 } })).map((d) => d.id as number));
    const lost = acks.ids.filter((id) => !present.has(id));
    t.same(lost, [], `no acknowledged insert lost (${acks.ids.length} checked, ${present.size} stored in all)`);
    const notUpdated = [];
    for (const id of acks.updated) if (!(await items.findOne({ id, updated: true }))) notUpdated.push(id);
    t.same(notUpdated, [], `no acknowledged update lost (${acks.updated.length} checked)`);
    const counter = await items.findOne({ id: 0 });
    t.ok((counter!.hits as number) >= acks.maxHits, `the counter is at least the last acknowledged value (${counter!.hits} >= ${acks.maxHits})`);
    const maxId = Math.max(...acks.ids);
    const next = await store.nextId('items');
    t.ok(next > maxId && next > lastMaxId, `nextId never reuses a value after a crash (${next} > ${maxId})`);
    lastMaxId = next;
    total += acks.ids.length;
    await store.close();
  }
  t.ok(total > 2000, `${total} acknowledged inserts checked across three crashes`);
});

t.test('a torn last line is dropped with a warning; the store opens', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const store = await openEmbedded(dir);
  await store.ensureCollection({ name: 'items', indexes: [{ fields: { id: 1 }, unique: true }] });
  await store.collection('items').insertMany([{ id: 1, name: 'a' }, { id: 2, name: 'b' }, { id: 3, name: 'c' }]);
  await store.close();
  const file = path.join(dir, 'store', 'items.db');
  await appendFile(file, '{"_id":"torn","id":99,"name":"half a li');

  const log = recordingLogger();
  const again = await openEmbedded(dir, log);
  const items = again.collection('items');
  t.same((await items.find({}, { sort: { id: 1 } })).map((d) => d.id), [1, 2, 3], 'the good documents are there');
  t.equal(await items.findOne({ id: 99 }), null, 'the torn one is gone');
  const warning = log.records.find((r) => r.level === 'warn');
  t.match(warning?.msg, /partial last line/, 'a warning was logged');
  t.match(warning?.obj, { file, bytes: 39 }, 'naming the file and the bytes dropped');
  await items.insertOne({ id: 4, name: 'd' });
  await again.close();
  const third = await openEmbedded(dir);
  t.equal(await third.collection('items').count({}), 4, 'writes after the repair are sound');
  await third.close();
  t.ok((await readFile(file, 'utf8')).endsWith('\n'), 'the file ends with a newline');
});

t.test('a complete last line without its newline is kept', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const store = await openEmbedded(dir);
  await store.collection('items').insertOne({ id: 1 });
  await store.close();
  const file = path.join(dir, 'store', 'items.db');
  await appendFile(file, '{"_id":"zz-complete","id":2}');
  const log = recordingLogger();
  const again = await openEmbedded(dir, log);
  t.same((await again.collection('items').find({}, { sort: { id: 1 } })).map((d) => d.id), [1, 2], 'both documents');
  await again.collection('items').insertOne({ id: 3 });
  await again.close();
  const third = await openEmbedded(dir);
  t.equal(await third.collection('items').count({}), 3, 'the next append did not run into it');
  await third.close();
});

t.test('a crash in the middle of a rewrite: the previous file or its complete copy is used', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const store = await openEmbedded(dir);
  await store.collection('items').insertMany([{ id: 1 }, { id: 2 }]);
  await store.close();
  const file = path.join(dir, 'store', 'items.db');
  // The temp copy was being written when the process died: the real file is untouched and wins.
  await writeFile(`${file}~`, '{"_id":"x","id":1');
  const a = await openEmbedded(dir);
  t.equal(await a.collection('items').count({}), 2, 'a partial temp file is ignored');
  await a.close();
  // Died between unlinking nothing and renaming: only the complete temp copy exists (nedb restores it).
  await rename(file, `${file}~`);
  const b = await openEmbedded(dir);
  t.equal(await b.collection('items').count({}), 2, 'a complete temp copy is restored');
  await b.close();
});
