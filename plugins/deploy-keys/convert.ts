// Stored deploy key → the API DeployKey resource (the only place that shape is made).
import type { DeployKeyRecord } from '../../schemas/contracts/deploy-keys.js';

export interface ApiDeployKey {
  id: number;
  key_id: number;
  key: string;
  url: string;
  title: string;
  fingerprint: string;
  created_at: string;
  read_only: boolean;
  repository?: Record<string, unknown>;
}

/**
 * `repoApiUrl` is `<api>repos/<owner>/<repo>/`; `repository` (the Repository as the caller sees it) is embedded only
 * for site admins and the repository's owner, as Gitea's appendPrivateInformation does.
 */
export function toApiDeployKey(doc: DeployKeyRecord, repoApiUrl: string, repository?: Record<string, unknown>): ApiDeployKey {
  return {
    ...(repository ? { repository } : {}),
    id: doc.id,
    key_id: doc.keyId as number,
    key: doc.content,
    url: `${repoApiUrl}keys/${doc.id}`,
    title: doc.title,
    fingerprint: doc.fingerprint,
    created_at: doc.createdAt,
    read_only: doc.readOnly,
  };
}

export const DEPLOY_KEY_SCHEMA = {
  $id: 'forgekit/DeployKey',
  type: 'object',
  properties: {
    id: { type: 'integer' },
    key_id: { type: 'integer' },
    key: { type: 'string' },
    url: { type: 'string' },
    title: { type: 'string' },
    fingerprint: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    read_only: { type: 'boolean' },
    repository: { $ref: 'forgekit/Repository' },
  },
  required: ['id', 'key_id', 'key', 'url', 'title', 'fingerprint', 'created_at', 'read_only'],
} as const;

export const DEPLOY_KEY_LIST_SCHEMA = { $id: 'forgekit/DeployKeyList', type: 'array', items: { $ref: 'forgekit/DeployKey' } } as const;
