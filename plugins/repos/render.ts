// Repositories as the API shows them to a caller: Repository objects, and RepositoryList JSON built from pieces
// serialised once per stored version (json-cache.ts), with owners, parents (forks) and the caller's permissions.
import type { Caller, JsonPieces, PluginContext } from '../../core/plugin.js';
import type { Collection } from '../../core/store/port.js';
import { ACCESS, type ApiRepository, type JsonListOptions, type RepoRecord, type UsersService } from '../../schemas/services.js';
import { modeOf, permissionMode, type Grants } from './access.js';
import { LIST_CLOSE, LIST_OPEN } from '../lib/doc-json.js';
import { toApiRepo, type RepoUrls } from './convert.js';
import { recordsByIds, type RepoAccess } from './repo-access.js';
import { RepoJsonCache } from './json-cache.js';

export interface RepoListOptions extends JsonListOptions {
  /** The caller's complete (unscoped) grants, already loaded: they cover every repository and parent shown. */
  grants?: Grants;
}

export class RepoRender {
  readonly json: RepoJsonCache;

  constructor(
    private readonly ctx: PluginContext,
    private readonly repos: Collection<RepoRecord>,
    private readonly access: RepoAccess,
    private readonly urls: RepoUrls,
  ) {
    this.json = new RepoJsonCache(
      ctx.serializer({ $ref: 'forgekit/Repository' }),
      ctx.serializer({ $ref: 'forgekit/Permission' }),
      ctx.settings.jsonCacheEntries as number,
    );
  }

  private get users(): UsersService {
    return this.ctx.services.get('users');
  }

  /** What rendering `repos` for `caller` needs: parents (for forks), owners, and the caller's grants. */
  private async renderContext(repos: RepoRecord[], caller: Caller | null, known?: Grants) {
    const parentIds = repos.map((r) => r.forkId).filter((id): id is number => typeof id === 'number');
    const parents = parentIds.length ? await recordsByIds(this.repos, parentIds) : new Map<number, RepoRecord>();
    const all = parents.size ? [...repos, ...parents.values()] : repos;
    // Grants already in hand (a list page's): one await, no Promise.all (its array and extra promises per request).
    const ownerIds = all.map((r) => r.ownerId);
    const [owners, grants] = known
      ? [await this.users.byIds(ownerIds), known]
      : await Promise.all([this.users.byIds(ownerIds), this.access.grantsFor(caller, all)]);
    const users = this.users;
    const render = (repo: RepoRecord, parent: ApiRepository | null): ApiRepository | null => {
      const owner = owners.get(repo.ownerId);
      if (!owner) return null;
      return toApiRepo(repo, users.toApi(owner, caller), permissionMode(grants, repo), this.urls, parent);
    };
    /** The parent as this caller may see it: null unless it is readable (it may have been made private). */
    const parentOf = (repo: RepoRecord): ApiRepository | null => {
      const parentRecord = typeof repo.forkId === 'number' ? parents.get(repo.forkId) : undefined;
      return parentRecord && modeOf(grants, parentRecord) >= ACCESS.read ? render(parentRecord, null) : null;
    };
    return { owners, grants, render, parentOf };
  }

  async toApi(repos: RepoRecord[], caller: Caller | null): Promise<ApiRepository[]> {
    if (repos.length === 0) return [];
    const { render, parentOf } = await this.renderContext(repos, caller);
    const out: ApiRepository[] = [];
    for (const repo of repos) {
      const api = render(repo, parentOf(repo));
      if (api) out.push(api);
    }
    return out;
  }

  async toJsonList(repos: RepoRecord[], caller: Caller | null, options: RepoListOptions = {}): Promise<JsonPieces> {
    const out: Buffer[] = [options.envelope ? Buffer.from(`${options.envelope.before}[`) : LIST_OPEN];
    const end = options.envelope ? Buffer.from(`]${options.envelope.after}`) : LIST_CLOSE;
    if (repos.length === 0) {
      out.push(end);
      return out;
    }
    const { owners, grants, render, parentOf } = await this.renderContext(repos, caller, options.grants);
    const users = this.users;
    const ownerJson = new Map<number, string>();
    let first = true;
    for (const repo of repos) {
      const owner = owners.get(repo.ownerId);
      if (!owner) continue;
      const mode = modeOf(grants, repo);
      if (options.readableOnly && mode < ACCESS.read) continue;
      const parent = parentOf(repo);
      if (parent) {
        out.push(this.json.serialize(first, render(repo, parent)!));
      } else {
        let ownerText = ownerJson.get(owner.id);
        if (ownerText === undefined) {
          ownerText = users.jsonText(owner, caller);
          ownerJson.set(owner.id, ownerText);
        }
        this.json.append(out, first, repo, ownerText, grants.units ? permissionMode(grants, repo) : mode, () => render(repo, null)!);
      }
      first = false;
    }
    out.push(end);
    return out;
  }

  /**
   * Each repository's JSON text as `toJsonList` writes it (same cache, no list punctuation), by id, for replies that
   * embed repositories in their own objects (notification threads). Repositories whose owner is gone are absent.
   */
  async toJsonTexts(repos: RepoRecord[], caller: Caller | null): Promise<Map<number, JsonPieces>> {
    const texts = new Map<number, JsonPieces>();
    if (repos.length === 0) return texts;
    const { owners, grants, render, parentOf } = await this.renderContext(repos, caller);
    const ownerJson = new Map<number, string>();
    for (const repo of repos) {
      const owner = owners.get(repo.ownerId);
      if (!owner || texts.has(repo.id)) continue;
      const parent = parentOf(repo);
      if (parent) {
        texts.set(repo.id, [this.json.serialize(true, render(repo, parent)!)]);
        continue;
      }
      let ownerText = ownerJson.get(owner.id);
      if (ownerText === undefined) {
        ownerText = this.users.jsonText(owner, caller);
        ownerJson.set(owner.id, ownerText);
      }
      const out: Buffer[] = [];
      const mode = modeOf(grants, repo);
      this.json.append(out, true, repo, ownerText, grants.units ? permissionMode(grants, repo) : mode, () => render(repo, null)!);
      texts.set(repo.id, out);
    }
    return texts;
  }
}
