// The mixed workload (issue 20): one stream of requests drawn from a realistic mix over many distinct keys —
// repository and user reads, lists, repository and user searches, and at a few percent relation toggles (star and
// unstar, follow and unfollow) and creates (issues, repositories) — by anonymous callers and many different signed-in
// users, so no response cache can serve it from one entry. The harness records every item's response once and the
// bare server replays item i's recorded bytes for item i (bench/run.ts, `stream`); both get the same stream under the
// same load. The seed is printed while seeding (`FORGEKIT_BENCH_SEED=<n>` repeats the stream).
import type { BenchCase, SeedContext, StreamItem } from '../case.js';
import { prng, ROLE_LOGINS, tokenOf } from '../dataset.js';
import { benchSeed } from './search-random.js';

const QUICK = process.argv.includes('--quick');
const ITEMS = QUICK ? 300 : 3000;

interface Pools {
  users: Array<{ id: number; login: string }>;
  repos: Array<{ owner: string; name: string; private: boolean; ownerId: number }>;
}

let pools: Pools | null = null;

/** Captures the seeded users and repositories (nothing is written): the stream is drawn from them. */
export async function seedMixed(ctx: SeedContext): Promise<void> {
  const logins = new Map(ctx.users.map((u) => [u.id, u.login]));
  pools = {
    users: ctx.users,
    // Repositories of users (organizations' logins are not in the seed context).
    repos: ctx.repos.filter((r) => logins.has(r.ownerId)).map((r) => ({ owner: logins.get(r.ownerId)!, name: r.lowerName, private: r.private, ownerId: r.ownerId })),
  };
  ctx.log(`mixed: seed ${benchSeed()} (FORGEKIT_BENCH_SEED=${benchSeed()} repeats this stream), ${ITEMS} requests`);
}

/** The mix, in percent of the stream. */
export const MIX: Array<[kind: string, weight: number]> = [
  ['GET /repos/{owner}/{repo}', 20],
  ['GET /users/{username}', 10],
  ['GET /users/{username}/repos', 8],
  ['GET /user/repos', 7],
  ['GET /repos/search', 12],
  ['GET /users/search', 6],
  ['GET /user', 5],
  ['GET /users/{username}/subscriptions', 4],
  ['GET /users/{username}/starred', 4],
  ['GET /users/{username}/followers', 4],
  ['GET /repos/{owner}/{repo}/issues', 4],
  ['GET /user/starred', 3],
  ['GET /users/{username}/following', 3],
  ['PUT /user/starred/{owner}/{repo}', 2],
  ['DELETE /user/starred/{owner}/{repo}', 2],
  ['PUT /user/following/{username}', 1],
  ['DELETE /user/following/{username}', 1],
  ['POST /repos/{owner}/{repo}/issues', 1.5],
  ['POST /user/repos', 0.5],
];

function substring(r: () => number, text: string, min: number, max: number): string {
  const len = Math.min(text.length, min + Math.floor(r() * (max - min + 1)));
  const at = Math.floor(r() * (text.length - len + 1));
  return text.slice(at, at + len);
}

export function drawStream(p: Pools, seed: number, count: number): StreamItem[] {
  const r = prng(seed ^ 0x6d1c3d);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const publicRepos = p.repos.filter((x) => !x.private);
  // Writes (stars, follows, new repositories, new issues) come from and go to accounts other than the dataset's roles:
  // other cases check the roles' exact counts (the starrer's subscriptions, the owner's issues), whichever runs first.
  const roles = new Set(Object.values(ROLE_LOGINS));
  const writers = p.users.filter((u) => !roles.has(u.login));
  const writable = publicRepos.filter((x) => !roles.has(x.owner));
  const ownersWithRepos = [...new Map(p.repos.map((x) => [x.ownerId, x.owner])).values()];
  const token = (login: string) => tokenOf(login);
  /** Half anonymous, half a random signed-in user. */
  const anyone = (): { token?: string } => (r() < 0.5 ? {} : { token: token(pick(p.users).login) });
  const total = MIX.reduce((n, [, w]) => n + w, 0);
  const starred: Array<{ login: string; owner: string; name: string }> = [];
  const followed: Array<{ login: string; other: string }> = [];
  const items: StreamItem[] = [];
  while (items.length < count) {
    let x = r() * total;
    let kind = MIX[0]![0];
    for (const [k, w] of MIX) {
      if (x < w) {
        kind = k;
        break;
      }
      x -= w;
    }
    const page = 1 + Math.floor(r() * r() * 4);
    const limit = pick([10, 20, 30]);
    const repo = pick(publicRepos);
    const user = pick(p.users);
    const writer = () => (roles.has(user.login) ? pick(writers) : user);
    const target = () => (roles.has(repo.owner) ? pick(writable) : repo);
    let item: Omit<StreamItem, 'kind'>;
    switch (kind) {
      case 'GET /repos/{owner}/{repo}': {
        // One in five: a private repository, read by its owner.
        const priv = r() < 0.2 ? p.repos.find((x, i) => x.private && i >= Math.floor(r() * p.repos.length)) : undefined;
        item = priv ? { method: 'GET', path: `/repos/${priv.owner}/${priv.name}`, token: token(priv.owner) } : { method: 'GET', path: `/repos/${repo.owner}/${repo.name}`, ...anyone() };
        break;
      }
      case 'GET /users/{username}': item = { method: 'GET', path: `/users/${user.login}`, ...anyone() }; break;
      case 'GET /users/{username}/repos': item = { method: 'GET', path: `/users/${pick(ownersWithRepos)}/repos?page=${page}&limit=${limit}`, ...anyone() }; break;
      case 'GET /user/repos': item = { method: 'GET', path: `/user/repos?page=${page}&limit=${limit}`, token: token(pick(ownersWithRepos)) }; break;
      case 'GET /repos/search': item = { method: 'GET', path: `/repos/search?q=${encodeURIComponent(substring(r, pick(p.repos).name, 2, 8))}&page=${page}&limit=${limit}`, ...anyone() }; break;
      case 'GET /users/search': item = { method: 'GET', path: `/users/search?q=${encodeURIComponent(substring(r, pick(p.users).login.toLowerCase(), 2, 6))}&page=${page}&limit=${limit}`, ...anyone() }; break;
      case 'GET /user': item = { method: 'GET', path: '/user', token: token(user.login) }; break;
      case 'GET /users/{username}/subscriptions': item = { method: 'GET', path: `/users/${user.login}/subscriptions?page=${page}`, ...anyone() }; break;
      case 'GET /users/{username}/starred': item = { method: 'GET', path: `/users/${user.login}/starred?page=${page}`, ...anyone() }; break;
      case 'GET /users/{username}/followers': item = { method: 'GET', path: `/users/${user.login}/followers`, ...anyone() }; break;
      case 'GET /users/{username}/following': item = { method: 'GET', path: `/users/${user.login}/following`, ...anyone() }; break;
      case 'GET /repos/{owner}/{repo}/issues': item = { method: 'GET', path: `/repos/${repo.owner}/${repo.name}/issues?state=open&page=${page}`, ...anyone() }; break;
      case 'GET /user/starred': item = { method: 'GET', path: `/user/starred?page=${page}`, token: token(user.login) }; break;
      case 'PUT /user/starred/{owner}/{repo}': {
        const [who, what] = [writer(), target()];
        starred.push({ login: who.login, owner: what.owner, name: what.name });
        item = { method: 'PUT', path: `/user/starred/${what.owner}/${what.name}`, token: token(who.login) };
        break;
      }
      case 'DELETE /user/starred/{owner}/{repo}': {
        // Unstar what an earlier item starred (a toggle), or a repository never starred (still 204).
        const s = starred.length ? starred.splice(Math.floor(r() * starred.length), 1)[0]! : (() => {
          const what = target();
          return { login: writer().login, owner: what.owner, name: what.name };
        })();
        item = { method: 'DELETE', path: `/user/starred/${s.owner}/${s.name}`, token: token(s.login) };
        break;
      }
      case 'PUT /user/following/{username}': {
        const who = writer();
        const other = pick(writers.filter((u) => u.id !== who.id).slice(0, 500));
        followed.push({ login: who.login, other: other.login });
        item = { method: 'PUT', path: `/user/following/${other.login}`, token: token(who.login) };
        break;
      }
      case 'DELETE /user/following/{username}': {
        const who = writer();
        const f = followed.length ? followed.splice(Math.floor(r() * followed.length), 1)[0]! : { login: who.login, other: pick(writers.filter((u) => u.id !== who.id).slice(0, 500)).login };
        item = { method: 'DELETE', path: `/user/following/${f.other}`, token: token(f.login) };
        break;
      }
      case 'POST /repos/{owner}/{repo}/issues': {
        const what = target();
        item = { method: 'POST', path: `/repos/${what.owner}/${what.name}/issues`, token: token(what.owner), body: { title: `Mixed workload issue {n}`, body: 'Filed by the mixed benchmark stream.' } };
        break;
      }
      default: // POST /user/repos
        item = { method: 'POST', path: '/user/repos', token: token(writer().login), body: { name: `mixed-${seed % 100000}-{n}`, description: 'made by the mixed benchmark stream' } };
    }
    items.push({ ...item, kind });
  }
  return items;
}

export const cases: BenchCase[] = [{
  name: 'mixed-0',
  group: 'mixed',
  path: '/(mixed stream)',
  plugins: ['repos', 'users', 'stars', 'follow', 'issues', 'watch'],
  description: `a stream of ${ITEMS} requests drawn from the mix in bench/cases/mixed.ts (reads, lists, searches, 4% toggles, 2% creates)`,
  stream: () => {
    if (!pools) throw new Error('mixed: no seeded users and repositories (the seeder did not run)');
    return { seed: benchSeed(), items: drawStream(pools, benchSeed(), ITEMS) };
  },
}];
