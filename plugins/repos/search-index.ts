// The repository name index behind `GET /repos/search`: n-grams of the lower-cased name in a posting collection.
//
// Every repository has one `repo_search` document carrying the grams of its lower-cased name (plugins/lib/grams.ts:
// the engine users search shares) in an indexed array field (a multikey index on MongoDB, an array index on the
// embedded store). A longer query's rarest trigram is chosen with the `repo_gram_df` document-frequency table.
import { isDuplicateKeyError, type Collection, type Doc, type IndexSpec } from '../../core/store/port.js';
import { gramsOf, lookupGrams, rarestGram, trigramsOf } from '../lib/grams.js';
import { orderTies } from './listing.js';

export const SEARCH_COLLECTION = 'repo_search';
export const GRAM_DF_COLLECTION = 'repo_gram_df';

/**
 * One per repository. The grams sit in `grams` for a public repository and in `privateGrams` for a private one,
 * so "public matches of gram g" is a bare index lookup that the store counts without looking at documents.
 */
export interface SearchDoc extends Doc {
  repoId: number;
  ownerId: number;
  private: boolean;
  lowerName: string;
  grams?: string[];
  privateGrams?: string[];
}

export interface GramDfDoc extends Doc {
  gram: string;
  n: number;
}

export function searchDocOf(repo: { id: number; ownerId: number; private: boolean; lowerName: string }): SearchDoc {
  const doc: SearchDoc = { repoId: repo.id, ownerId: repo.ownerId, private: repo.private, lowerName: repo.lowerName };
  doc[repo.private ? 'privateGrams' : 'grams'] = gramsOf(repo.lowerName);
  return doc;
}

/** The filter for the documents of gram `g`: public ones only, or every one (site admins). */
export function gramFilter(gram: string, includePrivate: boolean): Record<string, unknown> {
  return includePrivate ? { $or: [{ grams: gram }, { privateGrams: gram }] } : { grams: gram };
}

export const SEARCH_INDEXES: IndexSpec[] = [
  { fields: { repoId: 1 }, unique: true },
  // Sparse: a document has one of the two fields, so neither index carries the other half of the collection.
  { fields: { grams: 1 }, sparse: true },
  { fields: { privateGrams: 1 }, sparse: true },
  { fields: { ownerId: 1 } },
  // Short queries are sorted by the store: the embedded adapter walks this index and stops after a page.
  { fields: { lowerName: 1 } },
  // The same within one owner (a user's or an org's search).
  { fields: { ownerId: 1, lowerName: 1 } },
  // The same over private repositories only (a site admin's search walks them apart from the public ones).
  { fields: { private: 1, lowerName: 1 } },
];

export const GRAM_DF_INDEXES: IndexSpec[] = [{ fields: { gram: 1 }, unique: true }];

/** Keeps the posting collection and the df table in step with the repositories. */
export class NameIndex {
  constructor(
    readonly docs: Collection<SearchDoc>,
    readonly df: Collection<GramDfDoc>,
  ) {}

  async add(repo: { id: number; ownerId: number; private: boolean; lowerName: string }): Promise<void> {
    await this.docs.insertOne(searchDocOf(repo));
    await this.bump(trigramsOf(repo.lowerName), 1);
  }

  async remove(repo: { id: number; lowerName: string }): Promise<void> {
    const gone = await this.docs.findOneAndDelete({ repoId: repo.id });
    if (gone) await this.bump(trigramsOf(repo.lowerName), -1);
  }

  async setPrivate(repoId: number, value: boolean): Promise<void> {
    const doc = await this.docs.findOne({ repoId });
    if (!doc) return;
    const grams = gramsOf(doc.lowerName);
    const [to, from] = value ? ['privateGrams', 'grams'] : ['grams', 'privateGrams'];
    await this.docs.updateOne({ repoId }, { $set: { private: value, [to]: grams }, $unset: { [from]: true } });
  }

  private async bump(grams: string[], delta: number): Promise<void> {
    await Promise.all(grams.map(async (gram) => {
      try {
        await this.df.updateOne({ gram }, { $inc: { n: delta } }, { upsert: delta > 0 });
      } catch (err) {
        // Two first-time upserts of one gram race on the unique index: the loser's row now exists, so increment it.
        if (!isDuplicateKeyError(err)) throw err;
        await this.df.updateOne({ gram }, { $inc: { n: delta } });
      }
    }));
  }

  /** The single gram a query is looked up by. */
  async planGram(q: string): Promise<string> {
    const grams = lookupGrams(q);
    if (grams.length === 1) return grams[0]!;
    const rows = await this.df.find({ gram: { $in: grams } }, { projection: { gram: 1, n: 1 } });
    return rarestGram(grams, new Map(rows.map((r) => [r.gram, r.n])));
  }

  /** Documents under `gram`: public ones, and private ones too when `includePrivate` (index counts, no reads). */
  async postingSize(gram: string, includePrivate: boolean): Promise<number> {
    const [pub, priv] = await Promise.all([this.docs.count({ grams: gram }), includePrivate ? this.docs.count({ privateGrams: gram }) : 0]);
    return pub + priv;
  }

  /**
   * Matches of `q` among the documents of `filter` (for `q` longer than its gram: a gram posting), by a literal
   * substring check, keeping those `accept` lets through. Stored documents as they are: no projection to look up.
   */
  async candidates(q: string, filter: Record<string, unknown>, accept: Accept = ACCEPT_ALL): Promise<NameRow[]> {
    const out: NameRow[] = [];
    for (const r of await this.docs.find(filter)) if (r.lowerName.includes(q) && accept(r)) out.push({ id: r.repoId, lowerName: r.lowerName });
    return out;
  }

  /**
   * The first `n` names of `filter` that contain `q` and pass `accept`, in (lowerName, id) order, plus any that tie
   * with the n-th; every match when `n` is Infinity. `filter` must be an equality prefix of an index followed by
   * `lowerName` (the store then walks the index and jumps to a skip), so the names are read in order, in batches
   * sized by the expected share of matches (`rate`), and checked with a plain substring test instead of the
   * store's per-document gram-array test.
   */
  async walkNames(filter: Record<string, unknown>, q: string, n: number, rate: number, accept: Accept = ACCEPT_ALL): Promise<NameRow[]> {
    const out: NameRow[] = [];
    let skip = 0;
    let batch = Number.isFinite(n) ? Math.min(WALK_BATCH_MAX, Math.max(WALK_BATCH_MIN, Math.ceil((2 * (n + 1)) / Math.max(rate, 1e-6)))) : 0;
    for (;;) {
      const rows = await this.docs.find(filter, { sort: { lowerName: 1 }, skip, limit: batch });
      for (const r of rows) {
        if (!r.lowerName.includes(q) || !accept(r)) continue;
        // Past the n-th match only ties with it are needed (the id order among equal names is settled below).
        if (out.length >= n && r.lowerName !== out[out.length - 1]!.lowerName) return orderTies(out);
        out.push({ id: r.repoId, lowerName: r.lowerName });
      }
      if (batch === 0 || rows.length < batch) return orderTies(out);
      skip += rows.length;
      batch = Math.min(WALK_BATCH_MAX, batch * 2);
    }
  }
}

export interface NameRow {
  id: number;
  lowerName: string;
}

/** Which search documents a caller may see (public ones always pass: callers filter private ones). */
export type Accept = (doc: SearchDoc) => boolean;

const ACCEPT_ALL: Accept = () => true;
const WALK_BATCH_MIN = 32;
const WALK_BATCH_MAX = 4096;
