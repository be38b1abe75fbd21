// Content types for raw files: images, audio, video and PDF by extension; everything else is text/plain when it looks
// like text and application/octet-stream otherwise, so nothing a repository holds is ever served as active HTML.
import type { ChildProcess } from 'node:child_process';

const BY_EXT: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', bmp: 'image/bmp', ico: 'image/x-icon',
  avif: 'image/avif', svg: 'image/svg+xml', pdf: 'application/pdf', mp3: 'audio/mpeg', ogg: 'audio/ogg', wav: 'audio/wav',
  flac: 'audio/flac', mp4: 'video/mp4', webm: 'video/webm', ogv: 'video/ogg', zip: 'application/zip', gz: 'application/gzip',
  wasm: 'application/wasm', woff: 'font/woff', woff2: 'font/woff2', ttf: 'font/ttf', otf: 'font/otf',
};

/** Text unless a NUL byte shows in the first 8000 bytes (git's own binary test). */
export function looksBinary(head: Buffer): boolean {
  return head.subarray(0, 8000).includes(0);
}

export function mediaType(name: string, head: Buffer | null): string {
  const dot = name.lastIndexOf('.');
  const ext = dot >= 0 ? name.slice(dot + 1).toLowerCase() : '';
  const known = BY_EXT[ext];
  if (known) return known;
  if (head && !looksBinary(head)) return 'text/plain; charset=utf-8';
  return head ? 'application/octet-stream' : 'application/octet-stream';
}

/** Kills a git process and the helpers it started (its process group). */
export function killGroupOf(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    try { child.kill('SIGKILL'); } catch { /* gone */ }
  }
}
