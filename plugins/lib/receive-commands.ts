// The command list at the start of a receive-pack stream (`<old> <new> <ref>` pkt-lines up to a flush), read
// before git sees them so a push can be refused (default branch deletion, branch protection) over smart HTTP or SSH; the bytes
// read are replayed to git unchanged. Also the refusal reply, in the form the client's capabilities ask for.
import { Readable } from 'node:stream';
import type { RefUpdate } from '../../schemas/contracts/git.js';

/** The command section is small (one line per ref); anything larger is refused rather than buffered. */
export const MAX_COMMAND_BYTES = 4 * 1024 * 1024;

export class CommandListError extends Error {}

export interface ReceiveCommands {
  updates: RefUpdate[];
  capabilities: string[];
  /** The whole request body again: the bytes read so far, then the rest of the input. */
  body: Readable;
}

function pktLength(buf: Buffer, at: number): number {
  const hex = buf.toString('latin1', at, at + 4);
  if (!/^[0-9a-f]{4}$/i.test(hex)) throw new CommandListError('malformed pkt-line');
  return parseInt(hex, 16);
}

/** Parses the commands of a buffered prefix; null when the flush packet has not arrived yet. */
export function parseCommands(buf: Buffer): { updates: RefUpdate[]; capabilities: string[] } | null {
  const updates: RefUpdate[] = [];
  let capabilities: string[] = [];
  let at = 0;
  let first = true;
  while (true) {
    if (buf.length < at + 4) return null;
    const len = pktLength(buf, at);
    if (len === 0) return { updates, capabilities };
    if (len < 4) throw new CommandListError('malformed pkt-line');
    if (buf.length < at + len) return null;
    let line = buf.toString('utf8', at + 4, at + len);
    at += len;
    if (line.endsWith('\n')) line = line.slice(0, -1);
    if (line.startsWith('shallow ')) continue;
    if (line.startsWith('push-cert')) throw new CommandListError('signed pushes are not supported');
    if (first) {
      const nul = line.indexOf('\0');
      if (nul >= 0) {
        capabilities = line.slice(nul + 1).split(' ').filter(Boolean);
        line = line.slice(0, nul);
      }
      first = false;
    }
    const m = /^([0-9a-f]{40}) ([0-9a-f]{40}) (\S+)$/.exec(line);
    if (!m) throw new CommandListError('malformed push command');
    updates.push({ oldSha: m[1]!, newSha: m[2]!, ref: m[3]! });
  }
}

/** Reads the command list from the (decoded) request body and hands back a stream that replays it. */
export async function readCommands(input: Readable): Promise<ReceiveCommands> {
  const it = input[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const seen: Buffer[] = [];
  let size = 0;
  let parsed: ReturnType<typeof parseCommands> = null;
  let ended = false;
  while (!parsed) {
    const next = await it.next();
    if (next.done) {
      ended = true;
      parsed = parseCommands(Buffer.concat(seen, size)) ?? { updates: [], capabilities: [] };
      break;
    }
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value);
    seen.push(chunk);
    size += chunk.length;
    parsed = parseCommands(seen.length === 1 ? seen[0]! : Buffer.concat(seen, size));
    if (!parsed && size > MAX_COMMAND_BYTES) throw new CommandListError('the push command list is too large');
  }
  const head = Buffer.concat(seen, size);
  async function* replay(): AsyncGenerator<Buffer> {
    if (head.length) yield head;
    if (ended) return;
    while (true) {
      const next = await it.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { ...parsed, body: Readable.from(replay(), { objectMode: false }) };
}

function pkt(payload: Buffer | string): Buffer {
  const data = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  return Buffer.concat([Buffer.from((data.length + 4).toString(16).padStart(4, '0'), 'latin1'), data]);
}

/**
 * receive-pack's answer refusing every update: `unpack ok` and `ng <ref> <reason>` per command (report-status), inside
 * side-band channel 1 when the client asked for side-band, with the reason also on channel 2 (`remote: ...`).
 */
export function refusalReply(updates: RefUpdate[], capabilities: string[], reason: string): Buffer {
  const clean = reason.replace(/[\r\n]+/g, ' ').slice(0, 400);
  const report = Buffer.concat([
    pkt('unpack ok\n'),
    ...updates.map((u) => pkt(`ng ${u.ref} ${clean}\n`)),
    Buffer.from('0000'),
  ]);
  const sideband = capabilities.includes('side-band-64k') ? 65515 : capabilities.includes('side-band') ? 995 : 0;
  if (!capabilities.includes('report-status') && !capabilities.includes('report-status-v2')) {
    return sideband ? Buffer.concat([pkt(Buffer.concat([Buffer.from([3]), Buffer.from(`${clean}\n`)])), Buffer.from('0000')]) : Buffer.alloc(0);
  }
  if (!sideband) return report;
  const parts: Buffer[] = [pkt(Buffer.concat([Buffer.from([2]), Buffer.from(`${clean}\n`)]))];
  for (let i = 0; i < report.length; i += sideband) {
    parts.push(pkt(Buffer.concat([Buffer.from([1]), report.subarray(i, i + sideband)])));
  }
  parts.push(Buffer.from('0000'));
  return Buffer.concat(parts);
}
