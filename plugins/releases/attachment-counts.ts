// How many attachments each issue (its own, commentId 0) and each comment holds, kept in memory: every page of issues
// or comments asks for its attachments, and most issues and comments hold none, so a page whose ids hold none is
// answered without a store query.
import type { AttachmentRecord } from './store.js';

type Attached = Pick<AttachmentRecord, 'issueId' | 'commentId'>;

/**
 * Counted up before an attachment's row is written and down after a row is deleted, so a count is never below what
 * the store holds (a failed write or a bulk delete leaves it above: a query that finds nothing, never a missed file).
 */
export class AttachmentCounts {
  private readonly issues = new Map<number, number>();
  private readonly comments = new Map<number, number>();

  /** `delta` (±1) for one attachment; a release's attachments are not counted. */
  move(row: Attached, delta: number): void {
    if (!row.issueId) return;
    const [map, key] = row.commentId ? [this.comments, row.commentId] : [this.issues, row.issueId];
    const n = (map.get(key) ?? 0) + delta;
    if (n > 0) map.set(key, n);
    else map.delete(key);
  }

  /** Of `issueIds`, those that may hold attachments of their own. */
  issuesHolding(issueIds: readonly number[]): number[] {
    return this.issues.size === 0 ? [] : issueIds.filter((id) => this.issues.has(id));
  }

  /** Of `commentIds`, those that may hold attachments. */
  commentsHolding(commentIds: readonly number[]): number[] {
    return this.comments.size === 0 ? [] : commentIds.filter((id) => this.comments.has(id));
  }
}
