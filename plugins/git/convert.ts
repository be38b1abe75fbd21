// Template and license data → the API shapes Gitea uses for them.
import type { LicenseInfo } from './templates.js';

export interface ApiLicenseEntry {
  key: string;
  name: string;
  url: string;
}

export interface ApiLicense extends ApiLicenseEntry {
  body: string;
  implementation: string;
}

export interface ApiGitignore {
  name: string;
  source: string;
}

export function toLicenseEntry(license: LicenseInfo, apiBase: string): ApiLicenseEntry {
  return { key: license.key, name: license.name, url: `${apiBase}licenses/${encodeURIComponent(license.key)}` };
}

export function toLicense(license: LicenseInfo, body: string, apiBase: string): ApiLicense {
  return { ...toLicenseEntry(license, apiBase), body, implementation: '' };
}

export function toGitignore(name: string, content: string): ApiGitignore {
  return { name, source: content };
}
