// The benchmark case contract: what `bench/cases/<capability>.ts` files export and what the harness hands them.
//
// A case file exports `cases: BenchCase[]` (or a default export of one case or an array), and optionally
// `seed: BenchSeeder`, which inserts that capability's documents straight through the store port. A case whose
// name equals one of the harness's own cases (bench/default-cases.ts) replaces it; any other name is added.
import type { Store } from '../core/store/port.js';

export type BenchMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Seeded accounts a case can sign in as (an access token in `Authorization: token …`). */
export type BenchRole = 'owner' | 'starrer' | 'keys' | 'member' | 'admin';

export interface BenchAccount {
  id: number;
  login: string;
  email: string;
  /** A 40-hex access token (its SHA-256 is what the tokens collection stores). */
  token: string;
}

/** What the seeded dataset offers to case paths: `{owner.login}`, `{org.id}`, `{terms.common}`, … */
export interface BenchFixture {
  /** `/api/v1` */
  apiPrefix: string;
  /** True for `--quick` (small dataset): checks of page sizes read `sizes`. */
  quick: boolean;
  sizes: DatasetSizes;
  accounts: Record<BenchRole, BenchAccount>;
  /** The organization the `member` role belongs to (it owns public and private repositories). */
  org: { id: number; login: string };
  terms: {
    /** A 3-letter substring that many repository names contain. */
    common: string;
    /** A word only a handful of repository names contain. */
    rare: string;
    /** A term that several of `org`'s repositories contain. */
    org: string;
    /** A 3-letter substring of many user logins / full names. */
    user: string;
  };
  /** How many repository names (private ones included; for `org`, the org's only) and users match each term. */
  termCounts: { common: number; rare: number; org: number; user: number };
}

/** A small HTTP client on the running server, for cases that prepare their data through the API (`setup`). */
export interface BenchClient {
  /** The server's base URL (`http://127.0.0.1:<port>`), for requests `request` does not fit (no time limit, raw). */
  readonly url: string;
  /** Creates a user (as the seeded site admin) and an access token for it. */
  createUser(input?: { username?: string; email?: string; password?: string }): Promise<{ id: number; username: string; email: string; token: string }>;
  request(method: string, path: string, options?: { json?: unknown; token?: string; root?: boolean; headers?: Record<string, string>; body?: string | Buffer }):
    Promise<{ status: number; headers: Headers; text: string; json: any }>;
}

export interface RecordedResponse {
  status: number;
  /** Raw header pairs as the server sent them (minus Date/Connection/Keep-Alive/Transfer-Encoding). */
  headers: Array<[string, string]>;
  body: Buffer;
}

/** A recorded response's header (`name` lower case), as the checks read it. */
export function header(res: RecordedResponse, name: string): string | undefined {
  return res.headers.find(([k]) => k.toLowerCase() === name)?.[1];
}

/** What a case's `setup` may return: the token to sign with, the login it belongs to, the final path. */
export interface SetupResult {
  token?: string;
  path?: string;
  /** Recorded as the result's `as`, so a drawn request can be replayed as its caller. */
  as?: string;
}

export interface BenchCase {
  /** Unique kebab-case name, e.g. `repos-search-common`. `--case <text>` runs cases whose name or group contains it. */
  name: string;
  /** The family: `version`, `search`, `list`, `markup`, … (targets are per family, see bench/targets.ts). */
  group?: string;
  method?: BenchMethod;
  /** Path under the API prefix, query included; `{dotted.path}` placeholders are filled from the BenchFixture. */
  path: string | ((fx: BenchFixture) => string);
  /** The seeded account that signs the request; absent = anonymous (or the token `setup` returns). */
  as?: BenchRole;
  /** The path is under the site root instead of the API prefix. */
  root?: boolean;
  /**
   * Runs once against the live server before the case is measured, for data the seeded dataset does not have; may
   * return the token to sign with, the login it belongs to (recorded as the result's `as`) and the final path
   * (placeholders are not filled in a path it returns).
   */
  setup?: (client: BenchClient) => Promise<SetupResult>;
  headers?: Record<string, string>;
  /** A string or Buffer is sent as is; anything else as JSON (Content-Type added). */
  body?: unknown;
  /** Plugins the case needs; a case whose plugin is not enabled is skipped and the reason printed. */
  plugins?: string[];
  /**
   * Other case files whose seeders this case reads (`issues` for bench/cases/issues.ts): a run selecting the case
   * seeds them too, and `--skip-seeder` leaving one out skips the case with the reason.
   */
  needs?: string[];
  /** The status the recorded response must have (default 200); anything else fails the case instead of timing an error. */
  status?: number;
  /** Extra check of the recorded response (e.g. "the page is full"): a problem description, or null. */
  check?: (res: RecordedResponse, fx: BenchFixture) => string | null;
  description?: string;
  /**
   * Connections this case is loaded with, whatever the run's `--connections`: for requests that each run a git
   * process for a second (archives, clones), where 50 at once measure only queueing and timeouts.
   */
  connections?: number;
  /**
   * A request stream instead of one request (a mixed workload): the harness records every item's response once, in
   * order, the bare server replays item i's recorded response for item i (the request carries `x-bench-seq: i`), and
   * the load sends the items in order, round-robin over the connections, cycling. `path` only names the case.
   */
  stream?: (fx: BenchFixture) => BenchStream;
  /**
   * Runs only when a `--case` filter matches its name (never in a run of every case, nor through its group): for
   * cases that build a dataset of their own through the API in `setup` (bench/cases/api-built.ts), minutes of work
   * meant for a run on an empty base (`--repos 0`).
   */
  explicit?: boolean;
}

/** One request of a stream. `{n}` in the path or body becomes a counter that grows with every send (creates stay creates). */
export interface StreamItem {
  method: BenchMethod;
  /** Under the API prefix, query included (no placeholders). */
  path: string;
  /** An access token, or absent (anonymous). */
  token?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** What the item is, for the mix report (e.g. `GET /repos/{owner}/{repo}`). */
  kind: string;
}

export interface BenchStream {
  seed: number;
  items: StreamItem[];
}

/** A stored repository as the seeding plan knows it (enough for relation seeders to pick targets). */
export interface PlannedRepo {
  id: number;
  ownerId: number;
  lowerName: string;
  private: boolean;
}

export interface SeedContext {
  store: Store;
  /** True for `--quick` (small dataset). */
  quick: boolean;
  /** Sizes of this run's dataset. */
  sizes: DatasetSizes;
  fixture: BenchFixture;
  /** Every seeded user (not organizations), ascending ids. */
  users: Array<{ id: number; login: string }>;
  /** Every seeded repository, ascending ids. */
  repos: PlannedRepo[];
  /** A deterministic PRNG in [0, 1) for this seeder. */
  random: () => number;
  log: (message: string) => void;
}

export type BenchSeeder = (ctx: SeedContext) => Promise<void>;

export interface DatasetSizes {
  users: number;
  orgs: number;
  repos: number;
  /** Repositories owned by the `owner` role. */
  ownerRepos: number;
  /** Stars and watches of the `starrer` role. */
  stars: number;
  watches: number;
  sshKeys: number;
  gpgKeys: number;
  /** Share of private repositories. */
  privateShare: number;
}

/** Fills `{dotted.path}` placeholders from the fixture (URL-encoded); an unknown placeholder is an error. */
export function fillPath(template: string, fx: BenchFixture): string {
  return template.replace(/\{([A-Za-z0-9_.]+)\}/g, (_, dotted: string) => {
    let node: unknown = fx;
    for (const key of dotted.split('.')) {
      if (node === null || typeof node !== 'object' || !(key in (node as Record<string, unknown>))) {
        throw new Error(`unknown placeholder {${dotted}} in bench path "${template}"`);
      }
      node = (node as Record<string, unknown>)[key];
    }
    if (typeof node !== 'string' && typeof node !== 'number') throw new Error(`placeholder {${dotted}} is not a string or number`);
    return encodeURIComponent(String(node));
  });
}

export function resolvePath(c: BenchCase, fx: BenchFixture): string {
  const raw = typeof c.path === 'function' ? c.path(fx) : fillPath(c.path, fx);
  return raw.startsWith('/') ? raw : `/${raw}`;
}
