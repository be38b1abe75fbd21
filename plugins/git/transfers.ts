// Bounds on git transfers over smart HTTP (ref advertisement, fetch, push): how many git processes serve clients at
// once in all (503) and per repository (429), each refusal with Retry-After so git clients and proxies back off.
import { ForgeError } from '../../core/errors.js';

export interface TransferLimitSettings {
  /** git transfer processes at once, server-wide. */
  maxTransfers: number;
  /** git transfer processes at once for one repository. */
  maxTransfersPerRepo: number;
  /** What Retry-After says, in seconds. */
  retryAfterSeconds: number;
}

export class TransferLimits {
  private total = 0;
  private readonly perRepo = new Map<number, number>();

  constructor(private readonly settings: TransferLimitSettings) {}

  /** Transfers running now (server-wide, or of one repository). */
  running(repoId?: number): number {
    return repoId === undefined ? this.total : this.perRepo.get(repoId) ?? 0;
  }

  /** Takes a place for one transfer of the repository; returns its release (idempotent). Throws 503 or 429 when full. */
  enter(repoId: number): () => void {
    const { maxTransfers, maxTransfersPerRepo, retryAfterSeconds } = this.settings;
    const retry = { 'Retry-After': String(retryAfterSeconds) };
    if (this.total >= maxTransfers) {
      throw new ForgeError('SERVICE_UNAVAILABLE', `the server is serving ${maxTransfers} git transfers, its limit; try again in a few seconds`, retry);
    }
    const mine = this.perRepo.get(repoId) ?? 0;
    if (mine >= maxTransfersPerRepo) {
      throw new ForgeError('TOO_MANY_REQUESTS', `this repository is serving ${maxTransfersPerRepo} git transfers, the most at once; try again in a few seconds`, retry);
    }
    this.total++;
    this.perRepo.set(repoId, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.perRepo.get(repoId) ?? 1) - 1;
      if (left > 0) this.perRepo.set(repoId, left);
      else this.perRepo.delete(repoId);
    };
  }
}
