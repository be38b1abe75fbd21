// The `settings` plugin: Gitea's instance settings for clients (`GET /settings/api|attachment|repository|ui`), read
// from the configuration and from which capabilities are switched on, never hard-coded answers.
import { definePlugin, type PluginContext } from '../../core/plugin.js';
import '../../schemas/contracts/issues.js';
import '../../schemas/contracts/contents.js';

const int = { type: 'integer' } as const;
const bool = { type: 'boolean' } as const;
const str = { type: 'string' } as const;
const object = (properties: Record<string, unknown>) => ({ type: 'object', properties, required: Object.keys(properties) });

const GeneralAPISettings = object({ default_git_trees_per_page: int, default_max_blob_size: int, default_paging_num: int, max_response_items: int });
const GeneralAttachmentSettings = object({ allowed_types: str, enabled: bool, max_files: int, max_size: int });
const GeneralRepoSettings = object({
  http_git_disabled: bool, lfs_disabled: bool, migrations_disabled: bool, mirrors_disabled: bool, stars_disabled: bool, time_tracking_disabled: bool,
});
const GeneralUISettings = object({ allowed_reactions: { type: 'array', items: str }, custom_emojis: { type: 'array', items: str }, default_theme: str });

export interface SettingsSettings {
  /** What `GET /settings/ui` names as the default theme for clients that render (forgekit has no web UI). */
  defaultTheme: string;
}

/** Gitea's defaults for the contents limits when the contents plugin is off (its own settings when on). */
const GITEA_TREES_PER_PAGE = 1000;
const GITEA_MAX_BLOB_SIZE = 10 * 1024 * 1024;

function apiSettings(ctx: PluginContext) {
  const contents = ctx.services.has('contents') ? ctx.services.get('contents').limits : null;
  return {
    default_git_trees_per_page: contents?.treePageSize ?? GITEA_TREES_PER_PAGE,
    default_max_blob_size: contents?.maxBlobBytes ?? GITEA_MAX_BLOB_SIZE,
    default_paging_num: ctx.config.pagination.defaultLimit,
    max_response_items: ctx.config.pagination.maxLimit,
  };
}

function repoSettings(ctx: PluginContext) {
  const git = ctx.services.has('git');
  return {
    http_git_disabled: !git,
    // No Git LFS server and no time tracking in forgekit.
    lfs_disabled: true,
    migrations_disabled: !git,
    mirrors_disabled: !git,
    stars_disabled: !ctx.services.has('stars'),
    time_tracking_disabled: true,
  };
}

export default definePlugin<void, SettingsSettings>({
  name: 'settings',
  optionalDependencies: ['contents', 'git', 'stars', 'issues'],
  settings: {
    type: 'object',
    additionalProperties: false,
    properties: { defaultTheme: { type: 'string', maxLength: 100, default: 'gitea-auto' } },
  },
  routes: [
    {
      operationId: 'getGeneralApiSettings', summary: "Get instance's global settings for api", scope: 'misc',
      method: 'GET', path: '/settings/api', auth: 'public', schema: { response: { 200: GeneralAPISettings } },
      handler: async (rc) => ({ status: 200, body: apiSettings(rc.app) }),
    },
    {
      operationId: 'getGeneralAttachmentSettings', summary: "Get instance's global settings for Attachment", scope: 'misc',
      method: 'GET', path: '/settings/attachment', auth: 'public', schema: { response: { 200: GeneralAttachmentSettings } },
      // No capability stores attachments yet: reported off, with no types, size or count allowed.
      handler: async () => ({ status: 200, body: { enabled: false, allowed_types: '', max_size: 0, max_files: 0 } }),
    },
    {
      operationId: 'getGeneralRepositorySettings', summary: "Get instance's global settings for repositories", scope: 'misc',
      method: 'GET', path: '/settings/repository', auth: 'public', schema: { response: { 200: GeneralRepoSettings } },
      handler: async (rc) => ({ status: 200, body: repoSettings(rc.app) }),
    },
    {
      operationId: 'getGeneralUiSettings', summary: "Get instance's global settings for ui", scope: 'misc',
      method: 'GET', path: '/settings/ui', auth: 'public', schema: { response: { 200: GeneralUISettings } },
      handler: async (rc) => ({
        status: 200,
        body: {
          default_theme: (rc.app.settings as SettingsSettings).defaultTheme,
          allowed_reactions: rc.app.services.has('issues') ? [...rc.app.services.get('issues').allowedReactions] : [],
          // Markup renders no custom emoji.
          custom_emojis: [],
        },
      }),
    },
  ],
});
