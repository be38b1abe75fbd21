// Crash-safe denormalised counters without transactions: a change whose row write and counter moves are separate
// store writes runs under an intent document naming the records whose counters it moves. The intent is written
// first and deleted last, so a crash (SIGKILL, power cut) in between leaves it behind, and the owning plugin's start
// recounts exactly the records it names — from the rows, before any request. Both store adapters work the same way.
import { randomUUID } from 'node:crypto';
import type { CollectionSpec, Collection, Doc, IndexSpec, Store } from '../../core/store/port.js';
import { nowRfc3339 } from '../../core/time.js';

/** What a change's counters concern: target kind (e.g. `repoIds`) → ids of records whose counters it moves. */
export type IntentTargets<K extends string> = Partial<Record<K, readonly number[]>>;

/** The collection of a plugin's intents (one per plugin, so each start replays only its own). */
export function intentCollection(name: string): CollectionSpec & { indexes: IndexSpec[] } {
  return { name, indexes: [{ fields: { id: 1 }, unique: true }] };
}

type IntentDoc = Doc & { id: string | number; createdAt: string };

export class CounterIntents<K extends string> {
  private readonly rows: Collection<IntentDoc>;

  constructor(store: Store, collection: string, private readonly kinds: readonly K[]) {
    this.rows = store.collection<IntentDoc>(collection);
  }

  /**
   * Runs `work` (a row write plus the counter moves that follow it) under an intent naming `targets`. Ids that are
   * not positive (0: "no milestone") are dropped; with nothing left to name, `work` runs without an intent.
   */
  async around<R>(targets: IntentTargets<K>, work: () => Promise<R>): Promise<R> {
    const named: Partial<Record<K, number[]>> = {};
    let any = false;
    for (const kind of this.kinds) {
      const ids = [...new Set(targets[kind] ?? [])].filter((id) => id > 0);
      if (ids.length) {
        named[kind] = ids;
        any = true;
      }
    }
    if (!any) return work();
    // A random id, not a store sequence: an intent costs one insert and one delete, nothing more.
    const id = randomUUID();
    await this.rows.insertOne({ id, ...named, createdAt: nowRfc3339() });
    try {
      return await work();
    } finally {
      await this.rows.deleteOne({ id });
    }
  }

  /**
   * At start, before any request: hands the union of what unfinished intents name to `recount`, then removes those
   * intents. Returns how many there were (0 after a clean run).
   */
  async replay(recount: (targets: Record<K, Set<number>>) => Promise<void>): Promise<number> {
    const pending = await this.rows.find({});
    if (!pending.length) return 0;
    const targets = Object.fromEntries(this.kinds.map((k) => [k, new Set<number>()])) as Record<K, Set<number>>;
    for (const row of pending) {
      for (const kind of this.kinds) {
        const ids = row[kind];
        if (Array.isArray(ids)) for (const id of ids) if (typeof id === 'number' && id > 0) targets[kind].add(id);
      }
    }
    await recount(targets);
    for (const row of pending) await this.rows.deleteOne({ id: row.id });
    return pending.length;
  }
}
