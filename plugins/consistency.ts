// The consistency pass: what a crash (or an older version) can leave half-made, found and — with `repair` — fixed.
// Plugins repair their own unfinished creates at start already; this pass is what `forgekit doctor` runs on demand.
import type { Forge } from '../core/kernel.js';
import type { Account, RepoRecord } from '../schemas/services.js';
import type { Repos } from './repos/service.js';
import type { Orgs } from './orgs/service.js';
import type { GitService } from './git/service.js';

export interface ConsistencyReport {
  /** What was fixed (only with `repair`). */
  repaired: string[];
  /** What is wrong and was left alone (needs a person, or `repair` was not asked for). */
  problems: string[];
}

function serviceOf<T>(forge: Forge, name: string): T | null {
  try {
    return forge.service<T>(name);
  } catch {
    return null; // plugin disabled
  }
}

/**
 * Checks a started forge: half-made repositories (rolled back with `repair`), repositories whose git directory is
 * missing, organizations without an owner (both reported). Safe to run on a live server.
 */
export async function checkConsistency(forge: Forge, options: { repair?: boolean } = {}): Promise<ConsistencyReport> {
  const report: ConsistencyReport = { repaired: [], problems: [] };
  const repos = serviceOf<Repos>(forge, 'repos');
  const orgs = serviceOf<Orgs>(forge, 'orgs');
  const git = serviceOf<GitService>(forge, 'git');
  if (repos) {
    const unfinished = await repos.repos.find({ creating: true }, { projection: { id: 1, name: 1, ownerId: 1 } });
    if (options.repair) report.repaired.push(...(await repos.rollBackUnfinished()));
    else report.problems.push(...unfinished.map((r) => `repository ${r.ownerId}/${r.name} (id ${r.id}) is half-made (a create was interrupted)`));
    if (git) {
      const all = (await repos.repos.find({}, { projection: { id: 1, name: 1, ownerId: 1, mirror: 1, creating: 1 } })) as RepoRecord[];
      const owners = await repos.users.byIds(all.map((r) => r.ownerId));
      for (const repo of all) {
        if (repo.creating) continue;
        const owner: Account | undefined = owners.get(repo.ownerId);
        if (!owner) {
          report.problems.push(`repository id ${repo.id} (${repo.name}) has no owner account`);
          continue;
        }
        if (!(await git.storage.exists(git.storage.repoDir(owner.login, repo.name)))) {
          report.problems.push(`repository ${owner.login}/${repo.name} has no git directory`);
        }
      }
    }
  }
  if (orgs) {
    if (options.repair) report.repaired.push(...(await orgs.finishUnfinished()));
    report.problems.push(...(await orgs.ownerless()));
  }
  return report;
}
