// Password hashing with node:crypto scrypt and a per-user random salt; comparison in constant time. Hashing runs on
// libuv's thread pool, shared with file I/O: a semaphore bounds how many hashes run at once so the store never waits.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const KEY_LENGTH = 32;
const PARAMS: ScryptOptions = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** A counting semaphore: at most `limit` holders, the others wait in arrival order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next(); // the slot passes straight to the next waiter
      else this.active--;
    }
  }
}

export class PasswordHasher {
  private readonly slots: Semaphore;
  /** Hashes asked for and hashes finished (metrics, and tests that wait for a load to be in place). */
  readonly stats = { requested: 0, finished: 0 };
  /** A hash of a random password: unknown logins are checked against it, so they cost what a wrong password costs. */
  private dummy: Promise<{ hash: string; salt: string }> | null = null;

  constructor(maxConcurrent: number) {
    this.slots = new Semaphore(Math.max(1, maxConcurrent));
  }

  private async scrypt(password: string, salt: Buffer): Promise<Buffer> {
    this.stats.requested++;
    try {
      return await this.slots.run(() => new Promise<Buffer>((resolve, reject) =>
        scryptCb(password, salt, KEY_LENGTH, PARAMS, (err, key) => (err ? reject(err) : resolve(key)))));
    } finally {
      this.stats.finished++;
    }
  }

  async hash(password: string): Promise<{ hash: string; salt: string }> {
    const salt = randomBytes(16);
    const key = await this.scrypt(password, salt);
    return { hash: key.toString('hex'), salt: salt.toString('hex') };
  }

  async verify(password: string, hash: string, salt: string): Promise<boolean> {
    const expected = Buffer.from(hash, 'hex');
    const actual = await this.scrypt(password, Buffer.from(salt, 'hex'));
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  /** The same work as `verify` against an account, for a login that matches none; always false. */
  async verifyNothing(password: string): Promise<false> {
    this.dummy ??= this.hash(randomBytes(16).toString('hex'));
    const { hash, salt } = await this.dummy;
    await this.verify(password, hash, salt);
    return false;
  }
}

const unbounded = new PasswordHasher(Number.MAX_SAFE_INTEGER);

/** One hash outside any server's bound (seeding scripts). */
export function hashPassword(password: string): Promise<{ hash: string; salt: string }> {
  return unbounded.hash(password);
}
