// `forgekit dump --file F` and `forgekit restore --file F`: the embedded store and the git repositories as one
// archive (gzip'd tar with a manifest), taken while the store's LOCK is held, restorable into an empty data dir.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { parseArgs } from 'node:util';
import * as tar from 'tar';
import { packageVersion } from '../../core/config.js';
import { createStore } from '../../core/store/index.js';
import { cliConfig, CommandError, openForge, printJson, UsageError } from './context.js';
import { createProgress } from './progress.js';

export const BACKUP_USAGE = `usage:
  forgekit dump --file FILE [--json]       archive the data dir (store + repositories) of a stopped server
  forgekit restore --file FILE [--json]    unpack an archive into an empty (or missing) data dir`;

const MANIFEST = 'forgekit-dump.json';
const DATA = 'data';
const FORMAT = 1;

interface Manifest {
  format: number;
  forgekitVersion: string;
  createdAt: string;
  files: number;
  bytes: number;
}

/** Every file under `dir` (relative paths), without the store's LOCK. */
async function walk(dir: string, rel = ''): Promise<Array<{ rel: string; size: number }>> {
  const out: Array<{ rel: string; size: number }> = [];
  for (const entry of await readdir(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? path.join(rel, entry.name) : entry.name;
    if (r === path.join('store', 'LOCK')) continue;
    if (entry.isDirectory()) out.push(...(await walk(dir, r)));
    else if (entry.isFile()) out.push({ rel: r, size: (await stat(path.join(dir, r))).size });
  }
  return out;
}

function noMongo(mongodbUri: string): void {
  if (mongodbUri.trim() !== '') {
    throw new CommandError('dump and restore cover the embedded store; with MongoDB use mongodump/mongorestore for the documents and copy <dataDir>/repositories');
  }
}

export async function dump(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { file: { type: 'string' }, json: { type: 'boolean', default: false } } });
  if (!values.file) throw new UsageError('--file is required');
  const config = cliConfig();
  noMongo(config.mongodbUri);
  if (!(await stat(config.dataDir).catch(() => null))?.isDirectory()) throw new CommandError(`no data dir at ${config.dataDir}`);
  const target = path.resolve(values.file);
  if (target.startsWith(config.dataDir + path.sep)) throw new CommandError('the archive cannot be written inside the data dir');

  // Holding the store open holds its LOCK: a running server makes this fail, and none can start meanwhile.
  const store = createStore({ dataDir: config.dataDir, mongodbUri: '', compactIntervalMs: 0 }, { info() {}, warn() {}, error() {}, debug() {} } as never);
  await store.open();
  const staging = await mkdtemp(path.join(os.tmpdir(), 'forgekit-dump-'));
  let manifest: Manifest;
  try {
    const files = await walk(config.dataDir);
    manifest = { format: FORMAT, forgekitVersion: packageVersion(), createdAt: new Date().toISOString(), files: files.length, bytes: files.reduce((n, f) => n + f.size, 0) };
    await writeFile(path.join(staging, MANIFEST), JSON.stringify(manifest, null, 2));
    await mkdir(path.join(staging, DATA));
    const plain = path.join(staging, 'dump.tar');
    const progress = createProgress('dump', process.stderr, values.json === true && !process.stderr.isTTY);
    await tar.c({ file: plain, cwd: staging, portable: true }, [MANIFEST]);
    // Files are added under data/ with the names they have in the data dir.
    let done = 0;
    await tar.r({
      file: plain, cwd: config.dataDir, portable: true, prefix: DATA,
      onWriteEntry: () => progress.update(++done, files.length),
    } as never, files.map((f) => f.rel));
    progress.done();
    await mkdir(path.dirname(target), { recursive: true });
    await pipeline(createReadStream(plain), createGzip(), createWriteStream(target, { mode: 0o600 }));
  } finally {
    await rm(staging, { recursive: true, force: true });
    await store.close();
  }
  if (values.json) printJson({ file: target, ...manifest });
  else process.stdout.write(`dumped ${manifest.files} files (${manifest.bytes} bytes) of ${config.dataDir} to ${target}\n`);
}

export async function restore(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { file: { type: 'string' }, json: { type: 'boolean', default: false } } });
  if (!values.file) throw new UsageError('--file is required');
  const config = cliConfig();
  noMongo(config.mongodbUri);
  const source = path.resolve(values.file);
  if (!(await stat(source).catch(() => null))?.isFile()) throw new CommandError(`no archive at ${source}`);
  const existing = await readdir(config.dataDir).catch(() => null);
  if (existing && existing.length > 0) throw new CommandError(`refusing to restore into ${config.dataDir}: it is not empty`);

  // The manifest first: a file that is not a forgekit dump is refused before anything is written.
  let manifestText = '';
  try {
    await (tar.t({
      file: source,
      filter: (p: string) => p === MANIFEST,
      onReadEntry: (entry: NodeJS.ReadableStream) => { entry.on('data', (c: Buffer) => { manifestText += c.toString('utf8'); }); },
    } as never) as unknown as Promise<void>);
  } catch (err) {
    throw new CommandError(`${source} is not a forgekit dump: ${(err as Error).message}`);
  }
  let manifest: Manifest;
  try {
    manifest = JSON.parse(manifestText) as Manifest;
  } catch {
    throw new CommandError(`${source} is not a forgekit dump (no ${MANIFEST})`);
  }
  if (manifest.format !== FORMAT) throw new CommandError(`${source} has dump format ${manifest.format}; this forgekit reads format ${FORMAT}`);

  await mkdir(config.dataDir, { recursive: true, mode: 0o755 });
  const progress = createProgress('restore', process.stderr, values.json === true && !process.stderr.isTTY);
  let done = 0;
  await tar.x({
    file: source, cwd: config.dataDir, strip: 1, preservePaths: false,
    filter: (p: string) => p.startsWith(`${DATA}/`) && p !== `${DATA}/store/LOCK`,
    onReadEntry: () => progress.update(++done, manifest.files),
  } as never);
  progress.done();
  // Boot once on the restored data: the store loads, every plugin starts, indexes are ensured.
  const forge = await openForge();
  await forge.close();
  if (values.json) printJson({ dataDir: config.dataDir, ...manifest });
  else process.stdout.write(`restored ${manifest.files} files into ${config.dataDir} (dumped by forgekit ${manifest.forgekitVersion} at ${manifest.createdAt})\n`);
}
