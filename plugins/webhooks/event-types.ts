// Gitea's webhook event types (modules/webhook/type.go): what a hook subscribes to, the names the API accepts, and
// the `X-Gitea-Event` header each type is sent under.

/** Every event type this server sends, in Gitea's order (a hook's `events` are listed in this order). */
export const HOOK_EVENT_TYPES = [
  'create', 'delete', 'fork', 'push',
  'issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment',
  'pull_request', 'pull_request_assign', 'pull_request_label', 'pull_request_milestone', 'pull_request_comment',
  'pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment',
  'pull_request_sync', 'pull_request_review_request',
  'repository', 'release', 'status',
] as const;

export type HookEventType = (typeof HOOK_EVENT_TYPES)[number];

const ISSUE_TYPES: HookEventType[] = ['issues', 'issue_assign', 'issue_label', 'issue_milestone', 'issue_comment'];
const PULL_TYPES: HookEventType[] = [
  'pull_request', 'pull_request_assign', 'pull_request_label', 'pull_request_milestone', 'pull_request_comment',
  'pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment',
  'pull_request_sync', 'pull_request_review_request',
];
const REVIEW_TYPES: HookEventType[] = ['pull_request_review_approved', 'pull_request_review_rejected', 'pull_request_review_comment'];

/**
 * The names a CreateHookOption/EditHookOption `events` list may hold, as Gitea reads them: `issues` and
 * `pull_request` mean the whole family, `issues_only`/`pull_request_only` the plain event, `pull_request_review` the
 * three review outcomes; `*` (forgekit) every type. Unknown names are ignored, like Gitea; none at all means `push`.
 */
export function expandEvents(names: readonly string[]): HookEventType[] {
  const chosen = new Set<HookEventType>();
  const list = names.length === 0 ? ['push'] : names;
  for (const raw of list) {
    const name = raw.trim().toLowerCase();
    if (name === '*') HOOK_EVENT_TYPES.forEach((e) => chosen.add(e));
    else if (name === 'issues') ISSUE_TYPES.forEach((e) => chosen.add(e));
    else if (name === 'issues_only') chosen.add('issues');
    else if (name === 'pull_request') PULL_TYPES.forEach((e) => chosen.add(e));
    else if (name === 'pull_request_only') chosen.add('pull_request');
    else if (name === 'pull_request_review') REVIEW_TYPES.forEach((e) => chosen.add(e));
    else if ((HOOK_EVENT_TYPES as readonly string[]).includes(name)) chosen.add(name as HookEventType);
  }
  return HOOK_EVENT_TYPES.filter((e) => chosen.has(e));
}

/** `X-Gitea-Event` (and the GitHub/Gogs equivalents) for an event type: Gitea's HookEventType.Event(). */
export function headerEvent(type: HookEventType): string {
  switch (type) {
    case 'issues': case 'issue_assign': case 'issue_label': case 'issue_milestone':
      return 'issues';
    case 'pull_request': case 'pull_request_assign': case 'pull_request_label': case 'pull_request_milestone':
    case 'pull_request_sync': case 'pull_request_review_request':
      return 'pull_request';
    case 'issue_comment': case 'pull_request_comment':
      return 'issue_comment';
    case 'pull_request_review_approved':
      return 'pull_request_approved';
    case 'pull_request_review_rejected':
      return 'pull_request_rejected';
    case 'pull_request_review_comment':
      return 'pull_request_comment';
    default:
      return type;
  }
}
