// Repository JSON serialised once per stored version and reused by every list that shows it.
//
// A list page of 30 repositories costs far more to serialise than to find. The text of a repository depends on
// its stored version, its owner's User object as the caller sees it, and the caller's permissions; only the last
// differs between callers of the same page, and it is the `permissions` member. So the text is cut around that
// member once and kept; a page is then the pieces joined with each caller's permissions in between.
// Entries are valid only for the exact stored document they were made from (the embedded store hands out one
// read-only object per stored version; an adapter that returns fresh copies simply never hits) and the exact
// owner JSON: any change to either rebuilds the entry. Forks whose parent is shown are serialised whole, uncached.
import { ACCESS, type AccessMode, type ApiRepository, type RepoRecord } from '../../schemas/services.js';
import { dropOldestTenth } from '../../core/bounded-map.js';
import { permissionsOf } from './access.js';

type Serialize = (value: unknown) => string;

interface Entry {
  repo: RepoRecord;
  ownerJson: string;
  /** The UTF-8 text up to and including `"permissions":`. */
  head: Buffer;
  /** The UTF-8 text after the permissions object (mirror fields, closing brace). */
  tail: Buffer;
  /** Per access mode, once asked for: `,` + the whole text (the comma that precedes it in a list included). */
  whole: Array<Buffer | undefined>;
}

const COMMA = Buffer.from(',');

/** Owner views kept per repository: the email hidden, and shown (to the owner and site admins). */
const MAX_VARIANTS = 2;

const MODES: AccessMode[] = [ACCESS.none, ACCESS.read, ACCESS.write, ACCESS.admin, ACCESS.owner];

export class RepoJsonCache {
  /** Per repository id: its texts for the owner views seen (the owner's email shows to some callers only). */
  private readonly entries = new Map<number, Entry[]>();
  /** Permission JSON per access mode, from the Permission schema's serializer. */
  private readonly permissions: string[];
  private readonly permissionBytes: Buffer[];
  private readonly marker: string;
  /** Texts serialised from scratch (a test and a benchmark read it to see the reuse happen). */
  builds = 0;

  /** Owner texts come from the users service (`UsersService.jsonText`: one string per account version and view). */
  constructor(
    private readonly serializeRepo: Serialize,
    serializePermission: Serialize,
    /** Entries kept at most; the oldest are dropped first. 0 disables the cache. */
    private readonly capacity: number,
  ) {
    this.permissions = MODES.map((mode) => serializePermission(permissionsOf(mode)));
    this.permissionBytes = this.permissions.map((text) => Buffer.from(text));
    // Inside string values every `"` is escaped, so this sequence only ever occurs as the member itself.
    this.marker = `,"permissions":${this.permissions[ACCESS.none]}`;
  }

  /**
   * Appends the UTF-8 JSON of `repo` for a caller with `mode` to `out` (pieces, joined once per response: the
   * bytes go to the socket as they are, with no string to flatten and encode per request). `ownerJson` is the
   * owner's User JSON as this caller sees it; `build` makes the API object (with `parent: null` and any
   * permissions) when the entry must be (re)made.
   */
  append(out: Buffer[], first: boolean, repo: RepoRecord, ownerJson: string, mode: AccessMode, build: () => ApiRepository): void {
    const variants = this.entries.get(repo.id);
    if (variants) {
      for (const entry of variants) {
        if (entry.repo === repo && entry.ownerJson === ownerJson) {
          this.push(out, first, entry, mode);
          return;
        }
      }
    }
    this.builds++;
    const api = build();
    api.permissions = permissionsOf(ACCESS.none);
    const text = this.serializeRepo(api);
    const at = text.lastIndexOf(this.marker);
    if (at < 0 || this.capacity === 0) {
      out.push(Buffer.from((first ? '' : ',') + this.serializeRepo({ ...api, permissions: permissionsOf(mode) })));
      return;
    }
    const fresh: Entry = {
      repo,
      ownerJson,
      head: Buffer.from(text.slice(0, at + this.marker.length - this.permissions[ACCESS.none]!.length)),
      tail: Buffer.from(text.slice(at + this.marker.length)),
      whole: [],
    };
    if (variants) {
      // Entries of older versions go; the other owner view (email shown or not) of this version stays.
      const kept = variants.filter((e) => e.repo === repo).slice(-(MAX_VARIANTS - 1));
      kept.push(fresh);
      this.entries.set(repo.id, kept);
    } else {
      if (this.entries.size >= this.capacity) dropOldestTenth(this.entries, this.capacity);
      this.entries.set(repo.id, [fresh]);
    }
    this.push(out, first, fresh, mode);
  }

  /** One piece per repository: joining a page costs a copy per piece, so the three parts are joined once. */
  private push(out: Buffer[], first: boolean, entry: Entry, mode: AccessMode): void {
    const whole = (entry.whole[mode] ??= Buffer.concat([COMMA, entry.head, this.permissionBytes[mode]!, entry.tail]));
    // The first item of a list has no comma before it: a view without the first byte, not a copy.
    out.push(first ? whole.subarray(1) : whole);
  }

  /** The JSON text of one repository (what `append` adds), as a string. */
  json(repo: RepoRecord, ownerJson: string, mode: AccessMode, build: () => ApiRepository): string {
    const out: Buffer[] = [];
    this.append(out, true, repo, ownerJson, mode, build);
    return Buffer.concat(out).toString('utf8');
  }

  /** Whole-object serialisation (with its list comma unless first), for repositories shown with their parent. */
  serialize(first: boolean, api: ApiRepository): Buffer {
    return Buffer.from((first ? '' : ',') + this.serializeRepo(api));
  }

  /** Repositories with a kept text. */
  get size(): number {
    return this.entries.size;
  }

}
