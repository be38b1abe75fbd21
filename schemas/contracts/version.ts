// The `version` plugin's service: the version `GET /version` reports (api-docs shows the same).

export interface VersionService {
  /** `<giteaVersion>+forgekit-<package version>`, e.g. `1.23.0+forgekit-0.2.0`. */
  version: string;
}

declare module '../../core/plugin.js' {
  interface ForgeServices { version: VersionService }
}
