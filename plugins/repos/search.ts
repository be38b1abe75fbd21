// `GET /repos/search` planning: which gram posting or name walk answers a query for this caller, cheapest first
// (the name index: search-index.ts; the gram engine: plugins/lib/grams.ts).
import type { Caller } from '../../core/plugin.js';
import type { Filter } from '../../core/store/port.js';
import { ACCESS } from '../../schemas/services.js';
import { modeOf, type Grants } from './access.js';
import type { RepoAccess } from './repo-access.js';
import { mergeWindow, sliceSorted, type Light } from './listing.js';
import type { PageRequest, PageResult, RepoPages } from './pages.js';
import { gramFilter, type NameIndex, type SearchDoc } from './search-index.js';

export class RepoSearch {
  constructor(
    private readonly nameIndex: NameIndex,
    private readonly pages: RepoPages,
    private readonly access: RepoAccess,
  ) {}

  /**
   * `GET /repos/search`: `q` a literal, case-insensitive substring of the name (empty: every visible repository),
   * `uid` an owner filter; public repositories plus the private ones the caller can read; name order.
   */
  async search(caller: Caller | null, q: string, uid: number | undefined, page: PageRequest): Promise<PageResult> {
    const needle = q.trim().toLowerCase();
    if (needle.length > 100) return { repos: [], total: 0 }; // longer than any repository name
    const grants = await this.access.modeGrants(caller);
    // Every repository in scope is readable: site admins, or an owner whose every repository the caller reads.
    const readsAll = grants.admin || (uid !== undefined && (grants.ownerModes.get(uid) ?? ACCESS.none) >= ACCESS.read);
    const scope: Filter = uid !== undefined ? { ownerId: uid } : {};
    const result = await this.searchPage(caller, grants, readsAll, needle, uid, scope, page);
    return { ...result, grants };
  }

  private async searchPage(caller: Caller | null, grants: Grants, readsAll: boolean, needle: string, uid: number | undefined,
    scope: Filter, page: PageRequest): Promise<PageResult> {
    const n = page.skip + page.limit;
    // Owners the caller may not see (limited/private accounts): their public repositories drop out like private ones.
    const hidden = grants.hiddenOwners;
    const hides = !readsAll && hidden !== undefined && hidden.size > 0;
    /** A private search document (or one of a hidden owner) passes when the caller reads that repository. */
    const accept = (d: SearchDoc) => (!d.private && !(hides && hidden!.has(d.ownerId))) || readsAll ||
      modeOf(grants, { id: d.repoId, ownerId: d.ownerId, private: d.private }) >= ACCESS.read;
    const publicOf = (f: Filter): Filter => {
      if (!hides) return { ...f, private: false };
      if (typeof f.ownerId === 'number') return hidden!.has(f.ownerId) ? { ...f, private: false, id: -1 } : { ...f, private: false };
      return { ...f, private: false, ownerId: { $nin: [...hidden!] } };
    };
    // Private repositories beyond the walked ones come from the caller's own grants (owned, organizations, teams,
    // collaborations), which are few, so a query never loads private candidates it would then drop.
    const extrasFor = async (): Promise<Light[]> => readsAll || !caller
      ? []
      : (await this.access.privateReadable(caller, grants, uid)).filter((r) => r.lowerName.includes(needle));
    if (needle === '') return this.pages.sortedPage(readsAll ? scope : publicOf(scope), await extrasFor(), page);
    const gram = await this.nameIndex.planGram(needle);
    // Up to 3 characters the query is its own gram: the posting's size is the number of matches.
    const short = gram === needle;
    const posting = await this.nameIndex.postingSize(gram, readsAll);
    if (uid !== undefined) {
      const ownerSize = await this.nameIndex.docs.count(scope);
      // An owner with fewer repositories than the gram has documents: every name of the owner checked in order
      // (private ones too), which gives the page and the total at once.
      if (ownerSize <= posting) return this.pages.pageOfIds(sliceSorted(await this.nameIndex.walkNames(scope, needle, Infinity, 1, accept), page.skip, page.limit));
      const found = await this.nameIndex.candidates(needle, { ...gramFilter(gram, readsAll), ...scope }, accept);
      return this.pages.pageOfIds(sliceSorted([...found, ...(await extrasFor())], page.skip, page.limit));
    }
    const walked: Filter = readsAll ? {} : publicOf({});
    const domain = readsAll ? await this.nameIndex.docs.count({}) : await this.nameIndex.docs.count(walked);
    // A short query whose matches are common: names read in order until the page is full (expected rows:
    // n ÷ the share of matches), when that is fewer than the posting holds; else the posting, checked and sorted.
    // (Not while owners are hidden: the posting's size would count their repositories.)
    if (short && !hides && ((n + 1) * domain) / Math.max(posting, 1) <= posting) {
      const extras = await extrasFor();
      const head = await this.nameIndex.walkNames(walked, needle, n, posting / Math.max(domain, 1));
      const { ids } = mergeWindow(head, posting, extras, page.skip, page.limit);
      return this.pages.pageOfIds({ ids, total: posting + extras.length });
    }
    const found = await this.nameIndex.candidates(needle, gramFilter(gram, readsAll), accept);
    return this.pages.pageOfIds(sliceSorted([...found, ...(await extrasFor())], page.skip, page.limit));
  }
}
