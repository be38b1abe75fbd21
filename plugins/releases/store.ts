// The releases plugin's stored documents and their indexes.
import type { IndexSpec } from '../../core/store/port.js';

export const RELEASES = 'releases';
export const ATTACHMENTS = 'release_attachments';

export interface ReleaseRecord {
  [key: string]: unknown;
  id: number;
  repoId: number;
  /** `<repoId>:<tagName>`: one release per tag (tag names are case-sensitive, like git's). */
  tagKey: string;
  tagName: string;
  /** What the tag was (or is to be) made from: a branch or commit id. */
  target: string;
  title: string;
  note: string;
  isDraft: boolean;
  isPrerelease: boolean;
  /** The account that made it (null once the account is deleted: shown as Gitea's ghost). */
  publisherId: number | null;
  /** Creation time; set again when a draft is published (Gitea's `created_at` = `published_at`). */
  createdAt: string;
}

export interface AttachmentRecord {
  [key: string]: unknown;
  id: number;
  /** The public handle (download URL) and the file's name on disk. */
  uuid: string;
  repoId: number;
  /** What the file is attached to: a release, or an issue (commentId 0) or one of its comments; 0 for the others. */
  releaseId: number;
  issueId?: number;
  commentId?: number;
  uploaderId: number | null;
  /** The name shown and sent in Content-Disposition; never used on disk. */
  name: string;
  size: number;
  downloadCount: number;
  createdAt: string;
}

export const RELEASE_INDEXES: IndexSpec[] = [
  { fields: { id: 1 }, unique: true },
  { fields: { tagKey: 1 }, unique: true },
  // A repository's releases newest first: the list's order and the `latest` lookup.
  { fields: { repoId: 1, createdAt: -1, id: -1 } },
];

export const ATTACHMENT_INDEXES: IndexSpec[] = [
  { fields: { id: 1 }, unique: true },
  { fields: { uuid: 1 }, unique: true },
  { fields: { releaseId: 1, id: 1 } },
  { fields: { repoId: 1 } },
  // An issue's own attachments (commentId 0) and a comment's, in upload order.
  { fields: { issueId: 1, commentId: 1, id: 1 } },
  { fields: { commentId: 1, id: 1 } },
];
