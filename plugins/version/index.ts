// `GET /version`: a Gitea-compatible version with forgekit's own as semver build metadata, e.g. `1.23.0+forgekit-0.2.0`.
// Go clients (the Gitea SDK behind tea, Woodpecker, Drone) refuse servers below 1.11, so the bare package version
// locked them out (decisions.md, wire conventions). The Gitea base is an operator setting.
import { definePlugin } from '../../core/plugin.js';
import { packageVersion } from '../../core/config.js';
import { ServerVersionSchema, ref } from '../../schemas/resources.js';
import type { VersionService } from '../../schemas/contracts/version.js';

export interface VersionSettings {
  /** The Gitea API version forgekit answers as (the dialect its routes and shapes follow). */
  giteaVersion: string;
}


/** A semver core without pre-release or build parts (`1.23.0`); the build metadata is forgekit's. */
const SEMVER_CORE = '^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$';

/** Semver build metadata allows only `[0-9A-Za-z-]` identifiers separated by dots. */
export function reportedVersion(giteaVersion: string, forgekitVersion: string): string {
  return `${giteaVersion}+forgekit-${forgekitVersion.replace(/[^0-9A-Za-z.-]/g, '-')}`;
}

export default definePlugin<VersionService, VersionSettings>({
  name: 'version',
  settings: {
    type: 'object',
    additionalProperties: false,
    properties: {
      giteaVersion: { type: 'string', pattern: SEMVER_CORE, default: '1.23.0' },
    },
  },
  schemas: [ServerVersionSchema],
  start(ctx) {
    return { version: reportedVersion(ctx.settings.giteaVersion, packageVersion()) };
  },
  routes: [
    {
      method: 'GET',
      path: '/version',
      auth: 'public',
      operationId: 'getVersion',
      summary: "Returns the version of the Gitea application (forgekit's as build metadata)",
      scope: 'misc',
      schema: { response: { 200: ref('forgekit/ServerVersion') } },
      async handler(rc) {
        const { version } = rc.app.services.get('version');
        return { status: 200, body: { Version: version, version } };
      },
    },
  ],
});
