// Attachment files on disk: uploads streamed (multipart/form-data through busboy, or a raw body) into
// `<dataDir>/attachments/tmp/`, moved to `<dataDir>/attachments/<uuid[0..2]>/<uuid>` once complete and within the
// limits. A file is named by its attachment's uuid, never by what the client called it; nothing is buffered whole.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { chmod, mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { ForgeError, fail } from '../../core/errors.js';
import { mediaType } from '../../core/http/body.js';

export interface UploadLimits {
  /** Largest file in bytes (413 above). */
  maxSize: number;
  /** Accepted types: `.ext` file extensions, `type/subtype` or `type/*` media types; empty accepts everything. */
  allowedTypes: readonly string[];
}

export interface Received {
  uuid: string;
  name: string;
  size: number;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const NAME_MAX = 255;

class TooLarge extends Error {}

/** The name an attachment is shown under: the last path segment, trimmed; 422 when empty or with control characters. */
export function attachmentName(raw: string, field = 'name'): string {
  const name = raw.split(/[\\/]/).pop()!.trim();
  if (name === '' || name === '.' || name === '..') throw fail.validation(field, 'must be a file name');
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(name)) throw fail.validation(field, 'must not contain control characters');
  if ([...name].length > NAME_MAX) throw fail.validation(field, `must be at most ${NAME_MAX} characters`);
  return name;
}

/** Gitea's upload.Verify rule set: an extension entry matches the name's end, a media type the declared type. */
export function typeAllowed(name: string, mime: string, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  const lowerName = name.toLowerCase();
  const lowerMime = mime.toLowerCase().split(';')[0]!.trim();
  for (const raw of allowed) {
    const entry = raw.trim().toLowerCase();
    if (entry === '*/*' || entry === '*') return true;
    if (entry.startsWith('.')) {
      if (lowerName.endsWith(entry)) return true;
    } else if (entry.endsWith('/*')) {
      if (lowerMime.startsWith(entry.slice(0, -1))) return true;
    } else if (entry === lowerMime) {
      return true;
    }
  }
  return false;
}

export class AttachmentFiles {
  readonly root: string;
  private readonly tmp: string;

  constructor(dataDir: string) {
    this.root = path.join(path.resolve(dataDir), 'attachments');
    this.tmp = path.join(this.root, 'tmp');
  }

  /** Makes the directories (0700) and removes uploads a crash or a cut connection left half-written. */
  async start(): Promise<void> {
    await mkdir(this.tmp, { recursive: true, mode: 0o700 });
    await chmod(this.root, 0o700);
    for (const name of await readdir(this.tmp)) await rm(path.join(this.tmp, name), { force: true, recursive: true });
  }

  pathOf(uuid: string): string {
    if (!UUID.test(uuid)) throw new Error(`not an attachment uuid: ${uuid}`);
    return path.join(this.root, uuid.slice(0, 2), uuid);
  }

  /** The file, or the bytes `start`..`end` (inclusive) of it. */
  open(uuid: string, range?: { start: number; end: number }): ReadStream {
    return createReadStream(this.pathOf(uuid), range);
  }

  async size(uuid: string): Promise<number | null> {
    try {
      return (await stat(this.pathOf(uuid))).size;
    } catch {
      return null;
    }
  }

  async remove(uuid: string): Promise<void> {
    await rm(this.pathOf(uuid), { force: true });
  }

  /**
   * Reads the request's file: the `attachment` part of a multipart/form-data body, or the whole body of any other
   * type (then `queryName` must name it). `queryName` overrides the part's file name. Rejects with 413 past
   * `maxSize`, 422 for a name or type the rules refuse, 400 for a body without a file; nothing stays on disk then.
   */
  async receive(req: IncomingMessage, limits: UploadLimits, queryName: string | undefined): Promise<Received> {
    const declared = Number(req.headers['content-length'] ?? NaN);
    const multipart = mediaType(req) === 'multipart/form-data';
    // A multipart body carries a little more than its file; a raw body is the file.
    if (Number.isFinite(declared) && declared > limits.maxSize + (multipart ? 64 * 1024 : 0)) {
      req.resume();
      throw tooLarge(limits.maxSize);
    }
    const uuid = randomUUID();
    const tmpFile = path.join(this.tmp, `${uuid}.part`);
    try {
      const got = multipart ? await this.fromMultipart(req, limits, queryName, tmpFile) : await this.fromRaw(req, limits, queryName, tmpFile);
      const final = this.pathOf(uuid);
      await mkdir(path.dirname(final), { recursive: true, mode: 0o700 });
      await rename(tmpFile, final);
      return { uuid, ...got };
    } catch (err) {
      await unlink(tmpFile).catch(() => undefined);
      if (err instanceof TooLarge) throw tooLarge(limits.maxSize);
      throw err;
    }
  }

  private async fromRaw(req: IncomingMessage, limits: UploadLimits, queryName: string | undefined, file: string): Promise<{ name: string; size: number }> {
    if (!queryName) {
      req.resume();
      throw fail.validation('name', 'is required when the body is the file itself (or send multipart/form-data with an `attachment` part)');
    }
    const name = attachmentName(queryName);
    if (!typeAllowed(name, mediaType(req), limits.allowedTypes)) {
      req.resume();
      throw fail.validation('attachment', `this file type is not allowed (allowed: ${limits.allowedTypes.join(', ')})`);
    }
    const size = await writeLimited(req, file, limits.maxSize);
    return { name, size };
  }

  private fromMultipart(req: IncomingMessage, limits: UploadLimits, queryName: string | undefined, file: string): Promise<{ name: string; size: number }> {
    return new Promise((resolve, reject) => {
      let parser: busboy.Busboy;
      try {
        parser = busboy({
          headers: req.headers,
          limits: { files: 1, fileSize: limits.maxSize + 1, fields: 16, fieldSize: 4096, parts: 32, headerPairs: 32 },
        });
      } catch (err) {
        req.resume();
        reject(fail.badRequest(`malformed multipart/form-data: ${(err as Error).message}`));
        return;
      }
      let writing: Promise<{ name: string; size: number }> | null = null;
      let refused: unknown = null;
      let settled = false;
      const finish = (err: unknown, value?: { name: string; size: number }) => {
        if (settled) return;
        settled = true;
        if (err) {
          req.unpipe(parser);
          req.resume(); // let the client finish sending so it reads the answer
          reject(err);
        } else {
          resolve(value!);
        }
      };
      parser.on('file', (field, stream, info) => {
        if (field !== 'attachment' || writing || refused) {
          stream.resume();
          return;
        }
        let name: string;
        try {
          name = attachmentName(queryName || info.filename || '', queryName ? 'name' : 'attachment');
          if (!typeAllowed(name, info.mimeType, limits.allowedTypes)) {
            throw fail.validation('attachment', `this file type is not allowed (allowed: ${limits.allowedTypes.join(', ')})`);
          }
        } catch (err) {
          refused = err;
          stream.resume();
          return;
        }
        // busboy stops at maxSize + 1 bytes: one byte past the limit is enough to know it is too large.
        writing = pipeline(stream, createWriteStream(file, { mode: 0o600 })).then(async () => {
          const size = (await stat(file)).size;
          if (size > limits.maxSize) throw new TooLarge();
          return { name, size };
        });
        // A failure while writing ends the request at once (the parser keeps draining into nothing).
        writing.catch((err) => finish(err));
      });
      parser.on('error', (err) => finish(err instanceof ForgeError ? err : fail.badRequest(`malformed multipart/form-data: ${(err as Error).message}`)));
      parser.on('close', () => {
        if (refused) return finish(refused);
        if (!writing) return finish(fail.badRequest('the body has no `attachment` file part'));
        writing.then((v) => finish(null, v), (err) => finish(err));
      });
      req.on('aborted', () => finish(fail.badRequest('the upload was cut off')));
      req.pipe(parser);
    });
  }
}

function tooLarge(max: number): ForgeError {
  return new ForgeError('PAYLOAD_TOO_LARGE', `the attachment is larger than ${max} bytes`);
}

/** Streams `source` into `file`, failing with TooLarge past `max` bytes. */
async function writeLimited(source: Readable, file: string, max: number): Promise<number> {
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > max) done(new TooLarge());
      else done(null, chunk);
    },
  });
  try {
    await pipeline(source, counter, createWriteStream(file, { mode: 0o600 }));
  } catch (err) {
    source.resume();
    throw err;
  }
  return size;
}
