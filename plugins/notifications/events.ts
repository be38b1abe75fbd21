// Events → what the notifier does (Gitea's services/uinotification rules, see service.ts).
import type { PluginContext } from '../../core/plugin.js';
import type { IssueCommentEvent, IssueEvent, PullRequestEvent, PullReviewEvent } from '../../schemas/events.js';
import type { Account, RepoRecord } from '../../schemas/services.js';
import type { Notifications, Subject } from './service.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function apiBase(ctx: PluginContext, owner: Account, repo: RepoRecord): string {
  return `${ctx.urls.api}repos/${owner.login}/${repo.name}`;
}

function issueSubject(ctx: PluginContext, e: { repo: RepoRecord; owner: Account; number: number }, issue: Record<string, unknown>, isPull: boolean, comment?: Record<string, unknown>): Subject {
  const api = apiBase(ctx, e.owner, e.repo);
  const pr = issue.pull_request as { merged?: boolean } | null | undefined;
  const merged = issue.merged === true || pr?.merged === true;
  const commentId = comment && typeof comment.id === 'number' ? comment.id : null;
  const html = str(issue.html_url);
  return {
    title: str(issue.title),
    url: `${api}/${isPull ? 'pulls' : 'issues'}/${e.number}`,
    html_url: html,
    latest_comment_url: commentId ? `${api}/issues/comments/${commentId}` : '',
    latest_comment_html_url: commentId ? str(comment!.html_url) || `${html}#issuecomment-${commentId}` : '',
    type: isPull ? 'Pull' : 'Issue',
    state: isPull && merged ? 'merged' : str(issue.state) || 'open',
  };
}

/** The @mentioned accounts hear about it on their own (Gitea's NotifyIssueMention / comment mentions). */
async function mentions(n: Notifications, e: { repo: RepoRecord; owner: Account; senderId: number; issueId: number; mentionedIds?: number[] }, subject: Subject): Promise<void> {
  if (e.mentionedIds && e.mentionedIds.length > 0) {
    await n.notify({ repo: e.repo, owner: e.owner, doerId: e.senderId, issueId: e.issueId, subject, audience: e.mentionedIds });
  }
}

export function subscribe(ctx: PluginContext, n: Notifications): void {
  ctx.events.on('issue.changed', async (e: IssueEvent) => {
    if (e.action === 'deleted') return n.onIssueDeleted(e.issueId);
    const subject = issueSubject(ctx, e, e.issue, false);
    const base = { repo: e.repo, owner: e.owner, doerId: e.senderId, issueId: e.issueId, subject };
    if (e.action === 'opened' || e.action === 'closed' || e.action === 'reopened') await n.notify({ ...base, audience: 'all' });
    else if (e.action === 'assigned' && typeof e.assigneeId === 'number') await n.notify({ ...base, audience: [e.assigneeId] });
    else await n.refreshSubject(e.issueId, subject);
    await mentions(n, e, subject);
  });
  ctx.events.on('issue_comment.changed', async (e: IssueCommentEvent) => {
    const subject = issueSubject(ctx, e, e.issue, e.isPull, e.action === 'created' ? e.comment : undefined);
    if (e.action !== 'created') return n.refreshSubject(e.issueId, subject);
    await n.notify({ repo: e.repo, owner: e.owner, doerId: e.senderId, issueId: e.issueId, subject, audience: 'all' });
    await mentions(n, e, subject);
  });
  ctx.events.on('pull_request.changed', async (e: PullRequestEvent) => {
    if (e.action === 'deleted') return n.onIssueDeleted(e.issueId);
    const subject = issueSubject(ctx, e, e.pullRequest, true);
    const base = { repo: e.repo, owner: e.owner, doerId: e.senderId, issueId: e.issueId, subject };
    if (e.action === 'opened' || e.action === 'closed' || e.action === 'reopened' || e.action === 'synchronized') await n.notify({ ...base, audience: 'all' });
    else if (e.action === 'assigned' && typeof e.assigneeId === 'number') await n.notify({ ...base, audience: [e.assigneeId] });
    else if (e.action === 'review_requested' && typeof e.requestedReviewerId === 'number') await n.notify({ ...base, audience: [e.requestedReviewerId] });
    else await n.refreshSubject(e.issueId, subject);
    await mentions(n, e, subject);
  });
  ctx.events.on('pull_request.reviewed', async (e: PullReviewEvent) => {
    const issueId = e.issueId;
    const subject = issueSubject(ctx, e, e.pullRequest, true);
    await n.notify({ repo: e.repo, owner: e.owner, doerId: e.senderId, issueId, subject, audience: 'all' });
  });
}
