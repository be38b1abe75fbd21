// The `deploy-keys` plugin's service: which repositories a key may reach, for the SSH server.

/** A deploy key: one public key granted to one repository, read-only or read-write. */
export interface DeployKeyRecord {
  [key: string]: unknown;
  id: number;
  repoId: number;
  title: string;
  /** The normalised line "<type> <base64> <comment>". */
  content: string;
  fingerprint: string;
  type: string;
  bits: number;
  readOnly: boolean;
  createdAt: string;
}

export interface DeployKeysService {
  /** Every repository grant of this key (a key may be deployed to several repositories). */
  byFingerprint(fingerprint: string): Promise<DeployKeyRecord[]>;
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    'deploy-keys': DeployKeysService;
  }
}
