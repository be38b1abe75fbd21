// A 200 MB release attachment goes through a server in a child process while this test reads that process's memory
// from /proc: the upload is streamed to disk (busboy → file) and the download streamed back, so the server's resident
// memory stays flat. The peak is the kernel's own high-water mark (VmHWM, reset just before the upload), sampled RSS
// as a fallback; no timing is asserted. The file's SHA-256 round-trips.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { nodeCommand } from '../helpers/child-env.js';

const MB = 1024 * 1024;
const TOTAL = 200 * MB;

async function memory(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** POSTs a multipart body whose file part is `TOTAL` bytes made on the fly (never held whole here either). */
function upload(url: string, token: string): Promise<{ status: number; body: string; sha: string }> {
  const boundary = '----forgekit-memory-test';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const hash = createHash('sha256');
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      headers: { Authorization: `token ${token}`, 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': head.length + TOTAL + tail.length },
    }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, sha: hash.digest('hex') }));
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(MB);
    let sent = 0;
    const pump = () => {
      while (sent < TOTAL) {
        chunk.fill(sent / MB % 251);
        chunk.writeUInt32BE(sent / MB, 0);
        hash.update(chunk);
        sent += MB;
        if (!req.write(chunk)) {
          req.once('drain', pump);
          return;
        }
      }
      req.end(tail);
    };
    req.write(head);
    pump();
  });
}

function download(url: string, token: string): Promise<{ status: number; size: number; sha: string }> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { Authorization: `token ${token}` } }, (res) => {
      const hash = createHash('sha256');
      let size = 0;
      res.on('data', (c: Buffer) => { size += c.length; hash.update(c); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, size, sha: hash.digest('hex') }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

t.test('a 200 MB upload and download keep the server\'s memory flat', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'forgekit-upload-mem-'));
  const child = spawn(...nodeCommand([path.join(path.dirname(fileURLToPath(import.meta.url)), 'releases-upload-child.js'), dataDir]), { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(async () => {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    await rm(dataDir, { recursive: true, force: true });
  });
  const ready = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c) => {
      out += c;
      const line = out.split('\n').find((l) => l.startsWith('ready '));
      if (line) resolve(line);
    });
    child.once('exit', (code) => reject(new Error(`child exited with ${code} before it was ready`)));
  });
  const [, root, token] = ready.split(' ') as [string, string, string];
  const api = `${root}/api/v1`;
  const call = async (method: string, p: string, json?: unknown) => {
    const res = await fetch(api + p, { method, headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' }, body: json ? JSON.stringify(json) : undefined });
    return { status: res.status, json: await res.json().catch(() => null) };
  };
  t.equal((await call('POST', '/user/repos', { name: 'big', auto_init: true })).status, 201);
  const release = await call('POST', '/repos/root/big/releases', { tag_name: 'v1' });
  t.equal(release.status, 201);
  const assets = `${api}/repos/root/big/releases/${release.json.id}/assets`;

  // Warm up every code path once with a small file, then take the baseline.
  const warm = await fetch(`${assets}?name=warm.bin`, { method: 'POST', headers: { Authorization: `token ${token}`, 'Content-Type': 'application/octet-stream' }, body: Buffer.alloc(2 * MB, 1) });
  t.equal(warm.status, 201);
  await (await fetch((await warm.json()).browser_download_url)).arrayBuffer();

  const pid = child.pid!;
  const before = await memory(pid);
  let hwmReset = true;
  try {
    await writeFile(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
  } catch {
    hwmReset = false;
  }
  let sampled = before.rss;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      sampled = Math.max(sampled, (await memory(pid)).rss);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const up = await upload(assets, token);
  t.equal(up.status, 201, up.body.slice(0, 200));
  const attachment = JSON.parse(up.body);
  t.equal(attachment.size, TOTAL);
  const down = await download(attachment.browser_download_url, token);
  sampling = false;
  await sampler;
  t.equal(down.status, 200);
  t.equal(down.size, TOTAL);
  t.equal(down.sha, up.sha, 'the same 200 MB came back');
  const after = await memory(pid);
  const peak = hwmReset ? Math.max(after.hwm, sampled) : sampled;
  const growth = peak - before.rss;
  t.comment(`server RSS before ${(before.rss / MB).toFixed(1)} MB, peak during upload+download ${(peak / MB).toFixed(1)} MB (+${(growth / MB).toFixed(1)} MB; ${hwmReset ? 'VmHWM' : 'sampled RSS'})`);
  console.log(`releases upload memory: RSS before ${(before.rss / MB).toFixed(1)} MB, peak +${(growth / MB).toFixed(1)} MB for a 200 MB upload and download`);
  // Buffering the file would add at least 200 MB; streaming stays within a few buffers plus GC slack.
  t.ok(growth < 64 * MB, `the server grew by ${(growth / MB).toFixed(1)} MB (< 64 MB) for 200 MB`);
});
