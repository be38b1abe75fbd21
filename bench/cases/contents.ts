// Bench cases for the contents plugin, over one real repository pushed through smart HTTP in `setup`: a 10,000-commit
// linear history (written with `git fast-import`), 1,000 branches, a 100-entry directory and a 10 KB file.
//   contents-raw-10k       GET /repos/{o}/{r}/raw/blob10k.txt        (pooled cat-file, no process per request)
//   contents-dir-100       GET /repos/{o}/{r}/contents/dir100        (tree + last commit per entry, cached by commit id)
//   branches-list-1000     GET /repos/{o}/{r}/branches               (first page of 1,000 branches)
//   commits-page3-10k      GET /repos/{o}/{r}/commits?page=3         (page 3 of 10,000 commits, exact X-Total-Count)
//   archive-zip            GET /repos/{o}/{r}/archive/main.zip       (a `git archive` per request, streamed)
//   archive-targz          GET /repos/{o}/{r}/archive/main.tar.gz    (the same as tar.gz)
//   clone-upload-pack      POST /{o}/{r}.git/git-upload-pack         (a full clone's pack of the 10,000-commit history)
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchCase, BenchClient } from '../case.js';
import { header } from '../case.js';

// `--quick` (the smoke test in npm test) uses a smaller history so the suite stays short.
const QUICK = process.argv.includes('--quick');
const COMMITS = QUICK ? 500 : 10_000;
const BRANCHES = QUICK ? 100 : 1_000;
const DIR_ENTRIES = 100;

function pkt(text: string): Buffer {
  const data = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from((data.length + 4).toString(16).padStart(4, '0')), data]);
}

const git = (dir: string, args: string[], input?: Buffer | string): Buffer =>
  execFileSync('git', ['--git-dir', dir, ...args], {
    input, maxBuffer: 1024 * 1024 * 1024,
    env: { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: '1', LANG: 'C', LC_ALL: 'C' },
  });

/** The fixture repository, built once with fast-import: refs → ids, and a pack holding everything. */
export function buildFixture(): { refs: Map<string, string>; pack: Buffer } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'forgekit-bench-git-'));
  try {
    git(dir, ['init', '--bare', '-q']);
    const parts: string[] = [];
    const blob10k = 'x'.repeat(99) + '\n';
    const ident = 'Bench <bench@example.com>';
    let t = 1_600_000_000;
    for (let i = 1; i <= COMMITS; i++) {
      const msg = `commit ${i}\n`;
      parts.push(`commit refs/heads/main\nmark :${i}\ncommitter ${ident} ${t++} +0000\ndata ${Buffer.byteLength(msg)}\n${msg}`);
      if (i > 1) parts.push(`from :${i - 1}\n`);
      if (i === 1) {
        const big = blob10k.repeat(100);
        parts.push(`M 100644 inline blob10k.txt\ndata ${big.length}\n${big}\n`);
        for (let k = 0; k < DIR_ENTRIES; k++) {
          const c = `entry ${k}\n`;
          parts.push(`M 100644 inline dir100/file-${String(k).padStart(3, '0')}.txt\ndata ${c.length}\n${c}\n`);
        }
      }
      const c = `${i}\n`;
      parts.push(`M 100644 inline history/f${i % 50}.txt\ndata ${c.length}\n${c}\n`);
    }
    for (let b = 0; b < BRANCHES; b++) parts.push(`reset refs/heads/branch-${String(b).padStart(4, '0')}\nfrom :${COMMITS - b}\n\n`);
    parts.push('done\n');
    git(dir, ['fast-import', '--quiet', '--done'], parts.join(''));
    const refs = new Map<string, string>();
    for (const line of git(dir, ['for-each-ref', '--format=%(objectname) %(refname)']).toString().split('\n')) {
      const [sha, ref] = line.split(' ');
      if (sha && ref) refs.set(ref, sha);
    }
    const pack = git(dir, ['pack-objects', '--all', '--stdout', '-q'], '');
    return { refs, pack };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let ready: Promise<{ token: string; base: string }> | null = null;
/** The default branch's commit id, known once `prepare` has pushed the fixture (the clone case wants it). */
let mainSha = '';

/** A protocol-v0 `git-upload-pack` request for a full clone of `sha` (what `git clone` sends after info/refs). */
function cloneRequest(sha: string): Buffer {
  return Buffer.concat([pkt(`want ${sha} multi_ack_detailed side-band-64k thin-pack no-progress ofs-delta agent=git/2.39\n`), Buffer.from('0000'), pkt('done\n')]);
}

/** One repository for every case of this file: created through the API, filled by a real receive-pack request. */
function prepare(client: BenchClient): Promise<{ token: string; base: string }> {
  ready ??= (async () => {
    const user = await client.createUser({ username: 'bench-contents' });
    const made = await client.request('POST', '/user/repos', { token: user.token, json: { name: 'history' } });
    if (made.status !== 201) throw new Error(`creating the bench repository: ${made.status} ${made.text}`);
    const { refs, pack } = buildFixture();
    mainSha = refs.get('refs/heads/main') ?? '';
    const zero = '0'.repeat(40);
    const commands: Buffer[] = [];
    let first = true;
    for (const [ref, sha] of refs) {
      commands.push(pkt(`${zero} ${sha} ${ref}${first ? '\0report-status' : ''}\n`));
      first = false;
    }
    const body = Buffer.concat([...commands, Buffer.from('0000'), pack]);
    // Not through `client.request` (fetch gives up on a body silent for 300 s): the push of 1,001 new refs answers only
    // once every ref's push event is out — two git processes per ref, minutes on a loaded machine.
    const started = Date.now();
    const pushed = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(`${client.url}/${user.username}/history.git/git-receive-pack`, {
        method: 'POST', agent: false,
        headers: { 'Content-Type': 'application/x-git-receive-pack-request', Authorization: `token ${user.token}`, 'Content-Length': String(body.length) },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('latin1') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
    if (pushed.status !== 200 || !pushed.text.includes('unpack ok')) throw new Error(`pushing the bench repository: ${pushed.status} ${pushed.text.slice(0, 300)}`);
    process.stderr.write(`bench-contents: fixture pushed (${refs.size} refs, ${(pack.length / 1048576).toFixed(1)} MiB) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    return { token: user.token, base: `/repos/${user.username}/history` };
  })();
  return ready;
}

const setupPath = (suffix: string) => async (client: BenchClient) => {
  const { base } = await prepare(client);
  return { path: `${base}${suffix}` };
};

export const cases: BenchCase[] = [
  {
    name: 'contents-raw-10k',
    group: 'contents',
    path: '/repos/bench-contents/history/raw/blob10k.txt',
    setup: setupPath('/raw/blob10k.txt'),
    plugins: ['contents'],
    check: (res) => (res.body.length === 10_000 ? null : `expected 10,000 bytes, got ${res.body.length}`),
    description: 'GET /repos/{owner}/{repo}/raw/{path}: a 10 KB file at the default branch (pooled git cat-file).',
  },
  {
    name: 'contents-dir-100',
    group: 'contents',
    path: '/repos/bench-contents/history/contents/dir100',
    setup: setupPath('/contents/dir100'),
    plugins: ['contents'],
    check: (res) => {
      const body = JSON.parse(res.body.toString('utf8'));
      return Array.isArray(body) && body.length === DIR_ENTRIES && body.every((e: any) => e.type === 'file' && e.last_commit_sha)
        ? null : 'expected 100 file entries with their last commit';
    },
    description: 'GET /repos/{owner}/{repo}/contents/{dir}: a 100-entry directory with each entry\'s last commit.',
  },
  {
    name: 'branches-list-1000',
    group: 'contents',
    path: '/repos/bench-contents/history/branches',
    setup: setupPath('/branches'),
    plugins: ['contents'],
    check: (res) => (header(res, 'x-total-count') === String(BRANCHES + 1) ? null : `X-Total-Count ${header(res, 'x-total-count')}`),
    description: 'GET /repos/{owner}/{repo}/branches: the first page of 1,001 branches, with commits and protection.',
  },
  {
    name: 'commits-page3-10k',
    group: 'contents',
    path: '/repos/bench-contents/history/commits?page=3',
    setup: setupPath('/commits?page=3'),
    plugins: ['contents'],
    check: (res) => (header(res, 'x-total-count') === String(COMMITS) ? null : `X-Total-Count ${header(res, 'x-total-count')}`),
    description: 'GET /repos/{owner}/{repo}/commits?page=3: page 3 of a 10,000-commit history with stat, files and verification.',
  },
  {
    name: 'archive-zip',
    group: 'contents',
    path: '/repos/bench-contents/history/archive/main.zip',
    setup: setupPath('/archive/main.zip'),
    // A git process per request for most of a second: 8 at once measure throughput, 50 only queueing and timeouts.
    connections: 8,
    plugins: ['contents'],
    check: (res) => (res.body.subarray(0, 4).toString('latin1') === 'PK\x03\x04' ? null : 'expected a zip archive'),
    description: 'GET /repos/{owner}/{repo}/archive/main.zip: a streamed `git archive` of the default branch (152 files); throughput = req/s × bytes.',
  },
  {
    name: 'archive-targz',
    group: 'contents',
    path: '/repos/bench-contents/history/archive/main.tar.gz',
    setup: setupPath('/archive/main.tar.gz'),
    // A git process per request for most of a second: 8 at once measure throughput, 50 only queueing and timeouts.
    connections: 8,
    plugins: ['contents'],
    check: (res) => (res.body[0] === 0x1f && res.body[1] === 0x8b ? null : 'expected a gzip stream'),
    description: 'GET /repos/{owner}/{repo}/archive/main.tar.gz: a streamed `git archive --format=tar.gz` of the default branch; throughput = req/s × bytes.',
  },
  {
    name: 'clone-upload-pack',
    group: 'contents',
    method: 'POST',
    root: true,
    path: '/bench-contents/history.git/git-upload-pack',
    headers: { 'content-type': 'application/x-git-upload-pack-request', accept: 'application/x-git-upload-pack-result' },
    // The body names the pushed fixture's head, known after setup: read when the request is prepared.
    get body() { return mainSha ? cloneRequest(mainSha) : Buffer.alloc(0); },
    setup: async (client) => { await prepare(client); return { path: '/bench-contents/history.git/git-upload-pack' }; },
    // A 2.6 MB pack per request: 4 at once; the load generator itself receives only a few such bodies a second.
    connections: 4,
    plugins: ['git'],
    check: (res) => (res.body.includes(Buffer.from('PACK')) ? null : `expected a pack, got ${res.body.subarray(0, 120).toString('latin1')}`),
    description: 'POST /{owner}/{repo}.git/git-upload-pack: the pack of a full clone (10,000 commits) — git clone\'s data transfer, one `git upload-pack` per request; throughput = req/s × bytes.',
  },
];

export default cases;
