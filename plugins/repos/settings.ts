// Repository settings that Gitea clients read and write (EditRepoOption): one table of API name → stored key and
// default. A record made before a setting existed reads as the default, so no migration is needed; PATCH stores it.
import type { JsonSchema } from '../../core/plugin.js';
import type { RepoRecord } from '../../schemas/services.js';

/** Gitea's merge styles (`default_merge_style`); each is only valid while its `allow_*` flag is on. */
export const MERGE_STYLES = ['merge', 'rebase', 'rebase-merge', 'squash', 'fast-forward-only'] as const;
export type MergeStyle = (typeof MERGE_STYLES)[number];

/** The `allow_*` flag that must be on for each merge style. */
export const MERGE_STYLE_FLAG: Record<MergeStyle, string> = {
  merge: 'allow_merge_commits',
  rebase: 'allow_rebase',
  'rebase-merge': 'allow_rebase_explicit',
  squash: 'allow_squash_merge',
  'fast-forward-only': 'allow_fast_forward_only_merge',
};

interface SettingDef {
  /** The key in the stored record. */
  key: string;
  schema: JsonSchema;
  /** What a record that never stored the setting reads as (Gitea's defaults for a new repository). */
  default: boolean | string;
}

/** Boolean and string settings, in the wire order they appear in a Repository. */
export const REPO_SETTINGS: Record<string, SettingDef> = {
  has_issues: { key: 'hasIssues', schema: { type: 'boolean' }, default: true },
  has_wiki: { key: 'hasWiki', schema: { type: 'boolean' }, default: true },
  has_pull_requests: { key: 'hasPullRequests', schema: { type: 'boolean' }, default: true },
  has_projects: { key: 'hasProjects', schema: { type: 'boolean' }, default: true },
  has_releases: { key: 'hasReleases', schema: { type: 'boolean' }, default: true },
  has_packages: { key: 'hasPackages', schema: { type: 'boolean' }, default: true },
  has_actions: { key: 'hasActions', schema: { type: 'boolean' }, default: false },
  ignore_whitespace_conflicts: { key: 'ignoreWhitespaceConflicts', schema: { type: 'boolean' }, default: false },
  allow_merge_commits: { key: 'allowMergeCommits', schema: { type: 'boolean' }, default: true },
  allow_rebase: { key: 'allowRebase', schema: { type: 'boolean' }, default: true },
  allow_rebase_explicit: { key: 'allowRebaseExplicit', schema: { type: 'boolean' }, default: true },
  allow_squash_merge: { key: 'allowSquashMerge', schema: { type: 'boolean' }, default: true },
  allow_fast_forward_only_merge: { key: 'allowFastForwardOnlyMerge', schema: { type: 'boolean' }, default: true },
  allow_rebase_update: { key: 'allowRebaseUpdate', schema: { type: 'boolean' }, default: true },
  default_delete_branch_after_merge: { key: 'defaultDeleteBranchAfterMerge', schema: { type: 'boolean' }, default: false },
  default_merge_style: { key: 'defaultMergeStyle', schema: { type: 'string', enum: [...MERGE_STYLES] }, default: 'merge' },
  default_allow_maintainer_edit: { key: 'defaultAllowMaintainerEdit', schema: { type: 'boolean' }, default: false },
};

/** The settings' request properties (EditRepoOption). */
export const settingsBodyProperties: Record<string, JsonSchema> = Object.fromEntries(
  Object.entries(REPO_SETTINGS).map(([name, def]) => [name, def.schema]),
);

/** A setting's stored value, or its default. */
export function settingOf(repo: RepoRecord, name: string): boolean | string {
  const def = REPO_SETTINGS[name]!;
  const value = repo[def.key];
  return value === undefined ? def.default : (value as boolean | string);
}

/** Every setting as API fields. */
export function settingsOf(repo: RepoRecord): Record<string, boolean | string> {
  const out: Record<string, boolean | string> = {};
  for (const name in REPO_SETTINGS) out[name] = settingOf(repo, name);
  return out;
}

/**
 * The stored changes for a PATCH body's settings, checked together with what is stored: the default merge style must
 * stay allowed (so at least one merge style is always on).
 * Returns the `$set` fields, or a `[field, message]` problem.
 */
export function settingChanges(repo: RepoRecord, body: Record<string, unknown>): { set: Record<string, unknown> } | { problem: [string, string] } {
  const set: Record<string, unknown> = {};
  const after: Record<string, unknown> = settingsOf(repo);
  for (const name in REPO_SETTINGS) {
    if (body[name] === undefined) continue;
    set[REPO_SETTINGS[name]!.key] = body[name];
    after[name] = body[name];
  }
  if (Object.keys(set).length === 0) return { set };
  const style = after.default_merge_style as MergeStyle;
  if (after[MERGE_STYLE_FLAG[style]] !== true) {
    return { problem: ['default_merge_style', `"${style}" is not allowed in this repository (${MERGE_STYLE_FLAG[style]} is off)`] };
  }
  return { set };
}
