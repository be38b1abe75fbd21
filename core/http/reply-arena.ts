// The bytes of replies assembled from pieces (JSON lists joined from per-document text serialised once) are copied
// into long-lived slabs, and a slab's space is reused once the replies in it have been written.
//
// Why: a new Buffer per list reply (20–270 KB) is a new ArrayBuffer, memory outside V8's heap that V8 counts as
// "external". When such buffers live a little longer than usual (a busy server, a slow reader), scavenges promote
// them and only a full mark-compact frees them; every 64 MB of that growth makes V8 start a full marking of the
// whole heap ("external memory pressure"). Measured on the bench's 100k-repository data, 4 of 6 server processes
// fell into that loop for good (a full marking every ~0.6 s, 5× the CPU per list request: 390 vs 71 µs), and the
// same build without the per-reply ArrayBuffers none of 6. A slab is one allocation that stays; nothing per reply
// is external. (bench/RESULTS.md, "The second mode's cause".)
//
// A region goes back when its response closes: after its write finished (the bytes are with the kernel) or when its
// connection was lost (node cancels the writes). A region that never comes back (a pipelined reply still queued
// behind another when its connection died) keeps its slab from being reused: the arena forgets a slab once it is
// full, so such a slab is garbage once its last reply is.

/** A slab: one ArrayBuffer, used from the front; `pending` replies in it are not written yet. */
interface Slab {
  readonly bytes: Buffer;
  used: number;
  pending: number;
  /** Full and no longer the arena's current slab: free again (and reusable) when `pending` reaches 0. */
  retired: boolean;
}

export interface ReplyArenaOptions {
  /** Bytes per slab. */
  slabBytes?: number;
  /** Replies longer than this get a Buffer of their own (rare: the arena is for the common list sizes). */
  maxRegion?: number;
  /** Empty slabs kept for reuse beyond the current one. */
  keepFree?: number;
}

export class ReplyArena {
  private readonly slabBytes: number;
  private readonly maxRegion: number;
  private readonly keepFree: number;
  private current: Slab | null = null;
  private readonly free: Slab[] = [];
  /** The slab of a region, by its ArrayBuffer: weak, so a slab whose region never came back can go. */
  private readonly slabOf = new WeakMap<ArrayBufferLike, Slab>();
  private made = 0;

  constructor(options: ReplyArenaOptions = {}) {
    this.slabBytes = options.slabBytes ?? 4 * 1024 * 1024;
    this.maxRegion = Math.min(options.maxRegion ?? 1024 * 1024, this.slabBytes);
    this.keepFree = options.keepFree ?? 2;
  }

  /**
   * The pieces' bytes, in order, in one Buffer: a region of a slab (give it back with `release` once written) or,
   * for a reply longer than `maxRegion`, a Buffer of its own (`release` ignores it).
   */
  assemble(pieces: readonly Buffer[]): Buffer {
    let length = 0;
    for (let i = 0; i < pieces.length; i++) length += pieces[i]!.length;
    const out = length > this.maxRegion ? Buffer.allocUnsafeSlow(length) : this.take(length);
    let at = 0;
    for (let i = 0; i < pieces.length; i++) at += pieces[i]!.copy(out, at);
    return out;
  }

  /** Gives back a region `assemble` returned, once its bytes are written. Call it once per region. */
  release(region: Buffer): void {
    const slab = this.slabOf.get(region.buffer);
    if (slab === undefined) return;
    if (--slab.pending > 0) return;
    if (slab === this.current) {
      slab.used = 0; // nothing in it is waiting: start again from the front (its first pages are the warm ones)
    } else if (slab.retired) {
      slab.retired = false;
      slab.used = 0;
      if (this.free.length < this.keepFree) this.free.push(slab);
    }
  }

  /** Slabs made so far, and regions not yet released in the current slab (for tests and metrics). */
  get stats(): { slabsMade: number; pendingInCurrent: number } {
    return { slabsMade: this.made, pendingInCurrent: this.current?.pending ?? 0 };
  }

  private take(length: number): Buffer {
    let slab = this.current;
    if (slab === null || slab.used + length > slab.bytes.length) {
      if (slab !== null) {
        if (slab.pending === 0) {
          slab.used = 0;
        } else {
          slab.retired = true;
          slab = null;
        }
      }
      slab ??= this.free.pop() ?? this.newSlab();
      this.current = slab;
    }
    const start = slab.used;
    // Regions start at multiples of 8: copies of aligned memory are the fast ones.
    slab.used = (start + length + 7) & ~7;
    slab.pending++;
    return slab.bytes.subarray(start, start + length);
  }

  private newSlab(): Slab {
    // allocUnsafeSlow: a Buffer that owns its ArrayBuffer (not a slice of node's shared 8 KB pool).
    const slab: Slab = { bytes: Buffer.allocUnsafeSlow(this.slabBytes), used: 0, pending: 0, retired: false };
    this.slabOf.set(slab.bytes.buffer, slab);
    this.made++;
    return slab;
  }
}
