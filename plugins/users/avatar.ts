// Avatars: an uploaded image (POST /user/avatar, Gitea's base64 `image`) or a generated identicon (SVG made here
// from the account id), served at `<root>/avatars/<id>` — the `avatar_url` of every User.
import { createHash } from 'node:crypto';

export const AVATARS = 'avatars';

export interface AvatarDoc {
  [key: string]: unknown;
  uid: number;
  /** Media type sniffed from the bytes (never trusted from the client). */
  type: string;
  /** The image bytes, base64. */
  data: string;
  updatedAt: string;
}

/** Largest accepted upload, in decoded bytes (Gitea's default AVATAR_MAX_FILE_SIZE is 1 MiB). */
export const AVATAR_MAX_BYTES = 1024 * 1024;

/** The image type from its magic bytes: PNG, JPEG, GIF and WebP are accepted (Gitea's set); anything else is null. */
export function sniffImage(bytes: Buffer): string | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(bytes.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (bytes.length >= 12 && bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return null;
}

/** Strict base64 (optionally a data: URL, as browsers produce): null when it is not. */
export function decodeBase64Image(text: string): Buffer | null {
  const body = text.replace(/^data:image\/[a-z+.-]+;base64,/i, '').replace(/\s+/g, '');
  if (body.length === 0 || body.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return null;
  return Buffer.from(body, 'base64');
}

/**
 * A 5×5 mirrored identicon as SVG: the pattern and colour come from a hash of the account id, so it never changes
 * for an account and reveals nothing (no email hash, unlike Gravatar).
 */
export function identicon(id: number): string {
  const hash = createHash('sha256').update(`forgekit-avatar:${id}`).digest();
  const hue = ((hash[0]! << 8) | hash[1]!) % 360;
  const color = `hsl(${hue},55%,50%)`;
  const cells: string[] = [];
  for (let row = 0; row < 5; row++) {
    for (let col = 0; col < 3; col++) {
      if ((hash[2 + row * 3 + col]! & 1) === 0) continue;
      for (const x of col === 2 ? [2] : [col, 4 - col]) cells.push(`<rect x="${x * 40 + 20}" y="${row * 40 + 20}" width="40" height="40"/>`);
    }
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="240" viewBox="0 0 240 240">` +
    `<rect width="240" height="240" fill="#f0f0f0"/><g fill="${color}">${cells.join('')}</g></svg>`;
}
