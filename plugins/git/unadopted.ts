// Gitea's /admin/unadopted: git directories under the repositories root that no repository record claims (left by
// a restore, a copy, a crash, or an older install), listed, adopted as repositories, or deleted by site admins.
import type { Reply, RequestContext } from '../../core/plugin.js';
import { fail } from '../../core/errors.js';
import { pageHeaders, pageWindow } from '../../core/pagination.js';
import type { Account } from '../../schemas/services.js';
import { repos, users } from '../lib/request.js';
import type { GitService } from './service.js';

type Rc<P = any, Q = any> = RequestContext<P, Q>;

function git(rc: Rc): GitService {
  return rc.app.services.get('git');
}

/**
 * A glob (Gitea: gobwas/glob) as a whole-string, case-insensitive match: `*` any run of characters, `?` one;
 * everything else literal.
 */
function globOf(pattern: string): RegExp {
  const body = [...pattern].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`, 'i');
}

/** Every unadopted `owner/name`, in name order: owner directories of existing accounts only (as in Gitea). */
async function unadopted(rc: Rc, pattern: string): Promise<string[]> {
  const g = git(rc);
  const [ownerPart, repoPart] = pattern === '' ? ['*', '*'] : [pattern.split('/')[0]!, pattern.includes('/') ? pattern.slice(pattern.indexOf('/') + 1) : '*'];
  const ownerGlob = globOf(ownerPart);
  const repoGlob = globOf(repoPart);
  const out: string[] = [];
  for (const ownerDir of await g.storage.ownerDirs()) {
    if (!ownerGlob.test(ownerDir)) continue;
    const names = (await g.storage.repoNamesOf(ownerDir)).filter((n) => repoGlob.test(n));
    if (names.length === 0) continue;
    const owner = await users(rc).byName(ownerDir);
    if (!owner) continue;
    const claimed = await repos(rc).lowerNamesOf(owner.id);
    for (const name of names) if (!claimed.has(name)) out.push(`${ownerDir}/${name}`);
  }
  return out;
}

/** GET /admin/unadopted[?pattern=owner-glob/repo-glob] — paged names `owner/repo`. */
export async function listUnadopted(rc: Rc<unknown, { page?: number; limit?: number; pattern?: string; query?: string }>): Promise<Reply> {
  const win = pageWindow(rc.query, rc.app.config.pagination);
  // Gitea's swagger names the parameter `pattern`; its handler reads `query`: both are accepted.
  const all = await unadopted(rc, (rc.query.pattern ?? rc.query.query ?? '').trim());
  return { status: 200, body: all.slice(win.skip, win.skip + win.limit), headers: pageHeaders(rc, all.length, win) };
}

/** The owner and the unadopted directory named in the path; 404 when the owner is missing, a record exists or there is no directory. */
async function target(rc: Rc<{ owner: string; repo: string }>): Promise<{ owner: Account; name: string; dir: string }> {
  const owner = await users(rc).byName(rc.params.owner);
  if (!owner) throw fail.notFound();
  const name = rc.params.repo.toLowerCase();
  if (await repos(rc).byOwnerAndName(owner.login, name)) throw fail.notFound();
  let dir: string;
  try {
    dir = git(rc).storage.repoDir(owner.login, name);
  } catch {
    throw fail.notFound(); // a name the file system could not hold has no directory
  }
  if (!(await git(rc).storage.exists(dir))) throw fail.notFound();
  return { owner, name, dir };
}

/**
 * POST /admin/unadopted/{owner}/{repo} — a private repository record for the directory (Gitea adopts as private),
 * its default branch, emptiness and size read from it. Not a bare git repository: 422, the directory untouched.
 */
export async function adopt(rc: Rc<{ owner: string; repo: string }>): Promise<Reply> {
  const { owner, name, dir } = await target(rc);
  const g = git(rc);
  if (!(await g.storage.isBareRepository(dir))) throw fail.validation('repo', 'the directory is not a bare git repository');
  const head = await g.storage.headBranch(dir);
  await repos(rc).create(owner, { name, private: true, defaultBranch: head ?? undefined, adopt: true }, rc.caller, {
    checkInit: () => null,
    // The directory is the repository: nothing is made, and a failure leaves it where it was.
    create: async (repo, repoOwner) => {
      const stats = await g.storage.stats(g.repoDir(repo, repoOwner));
      return stats;
    },
  });
  rc.log.info({ repo: `${owner.login}/${name}`, admin: rc.caller?.login }, 'unadopted repository adopted');
  return { status: 204 };
}

/** DELETE /admin/unadopted/{owner}/{repo} — removes the directory (there is no record to go with it). */
export async function deleteUnadopted(rc: Rc<{ owner: string; repo: string }>): Promise<Reply> {
  const { owner, name, dir } = await target(rc);
  const g = git(rc);
  g.catFiles.forget(dir);
  await g.storage.remove(dir);
  rc.log.info({ repo: `${owner.login}/${name}`, admin: rc.caller?.login }, 'unadopted repository files deleted');
  return { status: 204 };
}
