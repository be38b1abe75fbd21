// Stored releases and attachments → Gitea's API objects (modules/structs/release.go, attachment.go).
import type { ApiUser } from '../../schemas/services.js';
import { UserSchema } from '../../schemas/resources.js';
import type { AttachmentRecord, ReleaseRecord } from './store.js';

/** Where a repository's release URLs point. */
export interface ReleaseView {
  /** `<api>repos/<owner>/<repo>` */
  api: string;
  /** `<root><owner>/<repo>` */
  html: string;
  attachment(a: AttachmentRecord): Record<string, unknown>;
}

/** Gitea's Attachment; the file is served at `<root>attachments/<uuid>` (`GET /attachments/{uuid}`). */
export function attachmentToApi(root: string, a: AttachmentRecord): Record<string, unknown> {
  return {
    id: a.id, name: a.name, size: a.size, download_count: a.downloadCount, created_at: a.createdAt, uuid: a.uuid,
    browser_download_url: `${root}attachments/${a.uuid}`,
  };
}

/** Gitea's stand-in for a deleted account, every User field at its zero value. */
export const GHOST: ApiUser = {
  ...Object.fromEntries(Object.entries(UserSchema.properties as Record<string, { type?: unknown }>).map(([k, v]) => {
    const type = Array.isArray(v.type) ? v.type[0] : v.type;
    return [k, type === 'integer' || type === 'number' ? 0 : type === 'boolean' ? false : type === 'string' ? '' : null];
  })),
  id: -1, login: 'Ghost', full_name: '', email: '', avatar_url: '', username: 'Ghost',
} as unknown as ApiUser;

/** A ref name in a URL path: each segment escaped, the slashes kept. */
export function pathOfRef(name: string): string {
  return name.split('/').map(encodeURIComponent).join('/');
}

export function releaseToApi(view: ReleaseView, r: ReleaseRecord, author: ApiUser | null, assets: AttachmentRecord[]): Record<string, unknown> {
  const tag = pathOfRef(r.tagName);
  return {
    id: r.id,
    tag_name: r.tagName,
    target_commitish: r.target,
    name: r.title,
    body: r.note,
    url: `${view.api}/releases/${r.id}`,
    html_url: `${view.html}/releases/tag/${tag}`,
    // The contents plugin's archive route (Gitea points at its web route of the same form).
    tarball_url: `${view.api}/archive/${tag}.tar.gz`,
    zipball_url: `${view.api}/archive/${tag}.zip`,
    upload_url: `${view.api}/releases/${r.id}/assets`,
    draft: r.isDraft,
    prerelease: r.isPrerelease,
    created_at: r.createdAt,
    published_at: r.createdAt,
    author: author ?? GHOST,
    assets: assets.map((a) => view.attachment(a)),
  };
}
