// Secrets that must be usable again (mirror credentials, webhook secrets and authorization headers) cannot be hashed:
// they are sealed with AES-256-GCM under a key kept in the data directory (0600), so a copy of the documents alone (a
// MongoDB dump, a leaked store file) does not reveal them.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const VERSION = 'v1';

export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** Loads the key from `file`, creating it (32 random bytes, mode 0600) on first use. */
  static async open(file: string): Promise<SecretBox> {
    // Private whatever the umask (an older install's directory or key file is tightened here).
    await chmod(path.dirname(file), 0o700).catch(() => undefined);
    await chmod(file, 0o600).catch(() => undefined);
    try {
      const key = await readFile(file);
      if (key.length !== 32) throw new Error(`${file} is not a 32-byte key`);
      return new SecretBox(key);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const key = randomBytes(32);
    try {
      await writeFile(file, key, { mode: 0o600, flag: 'wx' });
      return new SecretBox(key);
    } catch (err) {
      // Another process created it first: use theirs.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return SecretBox.open(file);
      throw err;
    }
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** The plain text, or null when the value was not sealed with this key (tampered, or another key). */
  unseal(sealed: string): string | null {
    if (!sealed.startsWith(`${VERSION}:`)) return null;
    const raw = Buffer.from(sealed.slice(VERSION.length + 1), 'base64');
    if (raw.length < 28) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
