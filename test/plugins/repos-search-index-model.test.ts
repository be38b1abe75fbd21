// The repository search index (plugins/repos/memory-index.ts) against a model, on generated data: for many queries,
// callers, filters, pages and both directions, every page and exact total of `search` (and the match set of `all`, the
// page of `sorted`) must equal what filtering and sorting the records themselves gives. The fast paths are all
// reached: owners big enough for their own gram postings (the threshold lowered so owners also become big by
// changes), short and long (kept) text queries, counts from per-flag counters with excluded flags and owners, a
// private side read by owner — and again after each round of changes (creates, renames, deletes, visibility, fork,
// mirror and archive flips, transfers, an owner growing past the threshold).
import t from 'tap';
import type { RepoRecord } from '../../schemas/services.js';
import { RepoIndex, type IndexQuery, type Visibility } from '../../plugins/repos/memory-index.js';
import { Minus } from '../../plugins/repos/access.js';

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (x + 0x6d2b79f5) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 2 ** 32;
  };
}

// Non-ASCII words too: the start-up load keys ASCII grams by number and others by string.
const WORDS = ['ab', 'abc', 'cab', 'core', 'web', 'api', 'app', 'bab', 'aaa', 'kit', 'x', 'server', 'serve', 'data', 'café', 'ñab', 'caf'];
const TOPICS = ['go', 'web', 'cli'];

t.test('search, all and sorted agree with a model through changes', async (t) => {
  const r = rng(20261128);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  // Owners 1 and 2 own most repositories (big on both sides), 3 becomes big by creates, 4..20 are small.
  const owner = () => (r() < 0.35 ? 1 : r() < 0.5 ? 2 : 3 + Math.floor(r() * 18));
  const nameOf = () => `${pick(WORDS)}${r() < 0.6 ? `-${pick(WORDS)}` : ''}${r() < 0.5 ? String(Math.floor(r() * 30)) : ''}`;
  const recs = new Map<number, RepoRecord>();
  let nextId = 1;
  const make = (ownerId: number): RepoRecord => {
    const name = nameOf();
    return {
      id: nextId++, ownerId, name, lowerName: name.toLowerCase(), description: r() < 0.3 ? `the ${pick(WORDS)} ${pick(WORDS)}` : '',
      website: '', private: r() < 0.3, fork: r() < 0.15, forkId: null, mirror: r() < 0.1, archived: r() < 0.1, template: r() < 0.05,
      empty: true, size: Math.floor(r() * 5), defaultBranch: 'main', numStars: Math.floor(r() * 4), numForks: 0, numWatches: 0,
      createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', mirrorUpdated: null, mirrorError: null,
      topics: r() < 0.3 ? [pick(TOPICS)] : r() < 0.05 ? [pick(TOPICS), pick(TOPICS)] : [],
    };
  };
  for (let i = 0; i < 700; i++) {
    const rec = make(owner());
    recs.set(rec.id, rec);
  }
  const index = new RepoIndex();
  index.bigOwner = 40;
  // Postings this small keep their marked ids counted per excluded set too (at 700 repositories few reach the default).
  index.markedCountsMin = 8;
  index.load(recs.values());

  // The model: what a query matches and who reads what, straight from the records.
  const matches = (x: RepoRecord, q: IndexQuery): boolean => {
    const flags = { fork: x.fork, mirror: x.mirror, archived: x.archived === true, template: x.template === true };
    if (q.text && !(x.lowerName.includes(q.text.q) || (q.text.desc && x.description.toLowerCase().includes(q.text.q)))) return false;
    if (q.topic !== undefined && !(x.topics ?? []).includes(q.topic)) return false;
    if (q.owners && !q.owners.includes(x.ownerId)) return false;
    if (q.ids && !q.ids.has(x.id)) return false;
    if (q.notOwner !== undefined && x.ownerId === q.notOwner) return false;
    if (q.notOwners?.has(x.ownerId)) return false;
    for (const [f, v] of Object.entries(q.flags ?? {})) if (v !== undefined && flags[f as keyof typeof flags] !== v) return false;
    return true;
  };
  const reads = (x: RepoRecord, v: Visibility): boolean => {
    if (x.private) return v.privateAll || (v.privateIds ?? []).includes(x.id) || (v.privateOwners ?? []).includes(x.ownerId);
    if (!v.public) return false;
    if ((v.grantedPublicIds ?? []).includes(x.id)) return true;
    if (v.hiddenOwners?.has(x.ownerId)) return false;
    return !v.publicOwners || v.publicOwners.includes(x.ownerId);
  };
  const byName = (a: RepoRecord, b: RepoRecord) => (a.lowerName < b.lowerName ? -1 : a.lowerName > b.lowerName ? 1 : a.id - b.id);
  const model = (q: IndexQuery, v: Visibility) => [...recs.values()].filter((x) => reads(x, v) && matches(x, q)).sort(byName);

  // Excluded-owner sets made once, as the users plugin's shared ones: the index keeps marks per set by repository id,
  // made at the first search and kept in step through every round of changes below (creates, transfers, deletes).
  const hidden = new Set([2, 7]);
  const hiddenLessOwn = new Minus(hidden, [7]);
  const excludedOwners = new Set([1, 8]);
  const visibilities = (): Array<[string, Visibility]> => {
    const privOf = (o: number) => [...recs.values()].filter((x) => x.private && x.ownerId === o).map((x) => x.id);
    // Granted public repositories must lie outside the caller's public side: here, of a hidden owner.
    const granted = [...recs.values()].filter((x) => !x.private && x.ownerId === 7).slice(0, 3).map((x) => x.id);
    return [
      ['anonymous', { public: true, privateAll: false }],
      ['admin', { public: true, privateAll: true }],
      ['admin private only', { public: false, privateAll: true }],
      ['owner by ids', { public: true, privateAll: false, privateIds: privOf(1) }],
      ['owner by owners', { public: true, privateAll: false, privateOwners: [1] }],
      ['member of two', { public: true, privateAll: false, privateOwners: [1, 5], privateIds: privOf(9).slice(0, 2) }],
      ['hidden owners', { public: true, privateAll: false, hiddenOwners: hidden, privateOwners: [2], grantedPublicIds: granted }],
      ['hidden owners but its own', { public: true, privateAll: false, hiddenOwners: hiddenLessOwn, privateOwners: [7] }],
      ['restricted', { public: true, privateAll: false, publicOwners: [1, 4], privateIds: privOf(4) }],
    ];
  };
  const queries = (): Array<[string, IndexQuery]> => {
    const names = [...recs.values()].map((x) => x.lowerName);
    const out: Array<[string, IndexQuery]> = [];
    const texts = ['a', 'ab', 'abc', 'b-a', 'cab', 'serve', 'ab-ab', 'erver', 'zzz', 'core-', '-web1', 'the a'];
    for (let i = 0; i < 10; i++) {
      const n = pick(names);
      const len = 1 + Math.floor(r() * Math.min(7, n.length));
      const at = Math.floor(r() * (n.length - len + 1));
      texts.push(n.slice(at, at + len));
    }
    texts.push('é', 'afé', 'ñ', 'he ');
    const flagSets: Array<IndexQuery['flags']> = [undefined, { fork: false, mirror: false }, { fork: true }, { mirror: true }, { archived: false },
      { archived: true, template: false }, { fork: false, mirror: false, archived: false }];
    for (const q of texts) {
      for (const desc of [false, true]) {
        const text = { q, desc };
        out.push([`q=${q} desc=${desc}`, { text }]);
        const flags = pick(flagSets);
        out.push([`q=${q} desc=${desc} flags=${JSON.stringify(flags)}`, { text, flags }]);
        for (const o of [1, 2, 3, pick([4, 5, 6, 9, 12])]) {
          out.push([`q=${q} desc=${desc} uid=${o}`, { text, owners: [o] }]);
          out.push([`q=${q} desc=${desc} uid=${o} flags`, { text, owners: [o], flags: pick(flagSets) }]);
        }
        out.push([`q=${q} owners 1,2,5`, { text, owners: [1, 2, 5] }]);
        out.push([`q=${q} notOwner 1`, { text, notOwner: 1, flags: pick(flagSets) }]);
        out.push([`q=${q} owner 1 notOwner 1`, { text, owners: [1], notOwner: 1 }]);
        out.push([`q=${q} notOwners`, { text, notOwners: excludedOwners, flags: pick(flagSets) }]);
      }
      // An owner the `Minus` caller is excepted from (hidden, but its own), excluded by the query itself.
      out.push([`q=${q} notOwner 7`, { text: { q, desc: false }, notOwner: 7, flags: pick(flagSets) }]);
      out.push([`q=${q} topic`, { text: { q, desc: false }, topic: pick(TOPICS) }]);
      out.push([`q=${q} ids`, { text: { q, desc: false }, ids: new Set([...recs.keys()].filter(() => r() < 0.2)) }]);
    }
    out.push(['list', {}], ['list uid 1', { owners: [1] }], ['list uid 7', { owners: [7] }], ['list source', { flags: { fork: false, mirror: false } }],
      ['list fork uid 2', { owners: [2], flags: { fork: true } }], ['list notOwner 2', { notOwner: 2, flags: { archived: false } }],
      ['list notOwner 1', { notOwner: 1 }], ['list notOwner 7', { notOwner: 7, flags: { fork: false } }], ['topic', { topic: 'web' }]);
    return out;
  };

  const check = (label: string) => {
    let compared = 0;
    const wrong: string[] = [];
    for (const [who, vis] of visibilities()) {
      for (const [what, query] of queries()) {
        // A query's own excluded owners are never combined with a caller's hidden ones (the index takes the caller's).
        if (query.notOwners && vis.hiddenOwners) continue;
        const want = model(query, vis);
        for (const desc of [false, true]) {
          const ordered = desc ? [...want].reverse() : want;
          for (const n of [0, 1, 7, 30, 1000]) {
            const got = index.search(query, vis, n, desc);
            compared++;
            const ids = ordered.slice(0, n).map((x) => x.id);
            if (got.total !== want.length || JSON.stringify(got.head) !== JSON.stringify(ids)) {
              wrong.push(`${who} ${what} desc=${desc} n=${n}: total ${got.total}/${want.length} head ${got.head.slice(0, 8)} / ${ids.slice(0, 8)}`);
            }
          }
        }
        const all = index.all(query, vis).sort((a, b) => a - b);
        if (JSON.stringify(all) !== JSON.stringify(want.map((x) => x.id).sort((a, b) => a - b))) wrong.push(`${who} ${what}: all differs`);
        const sorted = index.sorted(query, vis, 'stars', true, 10);
        const bySt = [...want].sort((a, b) => (b.numStars - a.numStars) || (b.id - a.id)).slice(0, 10).map((x) => x.id);
        if (sorted.total !== want.length || JSON.stringify(sorted.head) !== JSON.stringify(bySt)) wrong.push(`${who} ${what}: sorted differs`);
      }
    }
    t.same(wrong.slice(0, 10), [], `${label}: ${compared} pages and totals as the model's`);
    t.ok(compared > 1000, `${label}: compared many answers`);
  };

  const big = (side: 'pub' | 'priv', o: number): boolean => (index as any)[side].ownerName.has(o);
  t.ok(big('pub', 1) && big('priv', 1) && big('pub', 2) && !big('pub', 9), 'owners 1 and 2 are big on both sides, small ones are not');
  check('as loaded');
  t.ok(index.longBuilds > 0, 'long queries were built');
  t.ok(index.markedCountsKept > 0, 'kept counts of marked ids were read');

  const upsert = (rec: RepoRecord) => {
    recs.set(rec.id, rec);
    index.upsert(rec);
  };
  for (let round = 0; round < 3; round++) {
    const ids = [...recs.keys()];
    for (let i = 0; i < 60; i++) {
      const id = pick(ids);
      const rec = recs.get(id);
      if (!rec) continue;
      const k = r();
      if (k < 0.15) {
        recs.delete(id);
        index.remove(id);
      } else if (k < 0.3) {
        const name = nameOf();
        upsert({ ...rec, name, lowerName: name });
      } else if (k < 0.45) upsert({ ...rec, private: !rec.private });
      else if (k < 0.55) upsert({ ...rec, fork: !rec.fork });
      else if (k < 0.65) upsert({ ...rec, mirror: !rec.mirror, archived: !(rec.archived === true) });
      else if (k < 0.75) upsert({ ...rec, ownerId: owner() });
      else if (k < 0.85) upsert({ ...rec, description: `now ${pick(WORDS)}`, topics: [pick(TOPICS)] });
      else upsert(make(owner()));
    }
    // Owner 3 grows past the threshold on both sides (its gram postings are made while long queries are kept).
    for (let i = 0; i < 60; i++) upsert(make(3));
    const kept = index.markedCountsKept;
    check(`after round ${round + 1} of changes`);
    t.ok(index.markedCountsKept > kept, `after round ${round + 1}: kept counts of marked ids were read again`);
    if (round === 2) t.ok(big('pub', 3) && big('priv', 3), 'owner 3 became big by creates');
  }
});
