// The auto-init templates: curated .gitignore files and README templates kept in the project, license texts from the
// SPDX list (spdx-license-list), all matched case-insensitively and filled with the repository's details.
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../../core/config.js';

export const TEMPLATE_DIR = path.join(PACKAGE_ROOT, 'plugins', 'git', 'templates');

export interface LicenseInfo {
  /** The SPDX id, e.g. `MIT`, `Apache-2.0`. */
  key: string;
  name: string;
  /** Where the license is published (from the SPDX list). */
  source: string;
}

interface SpdxEntry {
  name: string;
  url: string;
  osiApproved: boolean;
}

/** Names Gitea (2017) gave its license templates, for clients that still send them. */
const LEGACY_LICENSE_NAMES: Record<string, string> = {
  'affero gpl': 'AGPL-3.0-only',
  'apache v2 license': 'Apache-2.0',
  'artistic license 2.0': 'Artistic-2.0',
  'bsd (simplified)': 'BSD-2-Clause',
  'bsd (3 clause)': 'BSD-3-Clause',
  'bsd 2-clause license': 'BSD-2-Clause',
  'bsd 3-clause license': 'BSD-3-Clause',
  'eclipse public license 1.0': 'EPL-1.0',
  'gpl v2': 'GPL-2.0-only',
  'gpl v3': 'GPL-3.0-only',
  'lgpl v2.1': 'LGPL-2.1-only',
  'lgpl v3': 'LGPL-3.0-only',
  'mit license': 'MIT',
  'mozilla public license version 2.0': 'MPL-2.0',
  'the unlicense': 'Unlicense',
};

/** The placeholders SPDX texts use for the year and the copyright holder (the common spellings). */
const YEAR_PLACEHOLDERS = ['<year>', '<YEAR>', '<Year>', '[yyyy]', '<yyyy>', '[year]', '[YEAR]', '[Year]', '{year}', '{YEAR}'];
const OWNER_PLACEHOLDERS = [
  '<name of author>', '<copyright holders>', '<copyright holder>', '<COPYRIGHT HOLDERS>', '<COPYRIGHT HOLDER>', '<owner>',
  '<OWNER>', '[name of copyright owner]', '[name of copyright holder]', '[copyright holders]', '[NAME]', '<AUTHOR>',
  "<author's name or designee>", '{licensor name}', '[fullname]',
];
const PROGRAM_PLACEHOLDERS = ['<program>'];

/**
 * A few SPDX texts carry a real copyright line where a template would have a placeholder (ISC quotes ISC's own);
 * these lines are replaced so the LICENSE names the repository owner.
 */
const COPYRIGHT_LINE_FIXES: Record<string, RegExp> = {
  ISC: /^Copyright \(c\) 2004-2010 by Internet Systems Consortium, Inc\. \("ISC"\)\nCopyright \(c\) 1995-2003 by Internet Software Consortium$/m,
};

export interface FillValues {
  owner: string;
  year: number;
  repoName: string;
  description: string;
  cloneUrl: string;
}

export class Templates {
  /** lower-case name → canonical name and content. */
  private gitignores = new Map<string, { name: string; content: string }>();
  private readmes = new Map<string, { name: string; content: string }>();
  /** lower-case SPDX id / name / legacy name → SPDX id. */
  private licenseIndex = new Map<string, string>();
  private licenses: LicenseInfo[] = [];
  private readonly require = createRequire(import.meta.url);

  async load(dir = TEMPLATE_DIR): Promise<void> {
    this.gitignores = await readTemplateDir(path.join(dir, 'gitignore'), '.gitignore');
    this.readmes = await readTemplateDir(path.join(dir, 'readme'), '');
    const spdx = this.require('spdx-license-list') as Record<string, SpdxEntry>;
    const entries = Object.entries(spdx).map(([key, v]) => ({ key, name: v.name, source: v.url }));
    entries.sort((a, b) => a.key.toLowerCase().localeCompare(b.key.toLowerCase()) || a.key.localeCompare(b.key));
    this.licenses = entries;
    const index = new Map<string, string>();
    for (const e of entries) index.set(e.key.toLowerCase(), e.key);
    // Full names second, so an id always wins over a name that happens to spell another id.
    for (const e of entries) if (!index.has(e.name.toLowerCase())) index.set(e.name.toLowerCase(), e.key);
    for (const [legacy, key] of Object.entries(LEGACY_LICENSE_NAMES)) if (!index.has(legacy) && spdx[key]) index.set(legacy, key);
    this.licenseIndex = index;
  }

  gitignoreNames(): string[] {
    return [...this.gitignores.values()].map((t) => t.name).sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
  }

  gitignore(name: string): { name: string; content: string } | null {
    return this.gitignores.get(name.trim().toLowerCase()) ?? null;
  }

  readmeNames(): string[] {
    return [...this.readmes.values()].map((t) => t.name).sort();
  }

  licenseList(): readonly LicenseInfo[] {
    return this.licenses;
  }

  /** The SPDX id for a license name (id, full name or legacy Gitea name, any case), or null. */
  licenseKey(name: string): string | null {
    return this.licenseIndex.get(name.trim().toLowerCase()) ?? null;
  }

  licenseInfo(key: string): LicenseInfo | null {
    const id = this.licenseKey(key);
    return id ? this.licenses.find((l) => l.key === id) ?? null : null;
  }

  /** The full license text from the data package (read on demand: the whole set is megabytes). */
  licenseText(key: string): string {
    const id = this.licenseKey(key);
    if (!id) throw new Error(`unknown license ${key}`);
    const file = this.require.resolve(`spdx-license-list/licenses/${id}.json`);
    return (JSON.parse(readFileSync(file, 'utf8')) as { licenseText: string }).licenseText;
  }

  /**
   * Checks the comma-separated gitignore list, the license and the readme. Returns the reason (a 422 message
   * naming the field) or null.
   */
  check(input: { gitignores: string; license: string; readme: string }): string | null {
    for (const name of splitList(input.gitignores)) {
      if (!this.gitignore(name)) return `gitignores: unknown template "${name}"`;
    }
    if (input.license.trim() && !this.licenseKey(input.license)) return `license: unknown license "${input.license.trim()}"`;
    if (input.readme.trim() && !this.readmes.has(input.readme.trim().toLowerCase())) return `readme: unknown template "${input.readme.trim()}"`;
    return null;
  }

  /** The files of the initial commit (path → content); only the requested ones. */
  initFiles(input: { gitignores: string; license: string; readme: string }, values: FillValues): Map<string, string> {
    const files = new Map<string, string>();
    const readme = this.readmes.get((input.readme.trim() || 'Default').toLowerCase());
    if (readme) files.set('README.md', fillReadme(readme.content, values));
    const ignores = splitList(input.gitignores).map((n) => this.gitignore(n)!).filter(Boolean);
    const seen = new Set<string>();
    const parts: string[] = [];
    for (const t of ignores) {
      if (seen.has(t.name)) continue;
      seen.add(t.name);
      parts.push(`# ---> ${t.name}\n${t.content.replace(/\s*$/, '')}\n`);
    }
    if (parts.length) files.set('.gitignore', parts.join('\n'));
    if (input.license.trim()) files.set('LICENSE', this.fillLicense(this.licenseKey(input.license)!, values));
    return files;
  }

  fillLicense(key: string, values: Pick<FillValues, 'owner' | 'year' | 'repoName'>): string {
    let text = this.licenseText(key);
    const fix = COPYRIGHT_LINE_FIXES[key];
    if (fix) text = text.replace(fix, `Copyright (c) <year> <owner>`);
    text = replaceAll(text, YEAR_PLACEHOLDERS, String(values.year));
    text = replaceAll(text, OWNER_PLACEHOLDERS, values.owner);
    text = replaceAll(text, PROGRAM_PLACEHOLDERS, values.repoName);
    return text.endsWith('\n') ? text : `${text}\n`;
  }
}

function replaceAll(text: string, needles: string[], value: string): string {
  let out = text;
  for (const n of needles) out = out.split(n).join(value);
  return out;
}

/** README variables, as in Gitea's templates: {Name}, {Description}, {CloneURL.HTTPS}, {Owner}. */
function fillReadme(template: string, v: FillValues): string {
  const vars: Record<string, string> = {
    Name: v.repoName,
    Description: v.description,
    'CloneURL.HTTPS': v.cloneUrl,
    Owner: v.owner,
  };
  const filled = template.replace(/\{(Name|Description|CloneURL\.HTTPS|Owner)\}/g, (_, k: string) => vars[k] ?? '');
  return `${filled.replace(/\s+$/, '')}\n`;
}

export function splitList(list: string): string[] {
  return list.split(',').map((s) => s.trim()).filter(Boolean);
}

async function readTemplateDir(dir: string, suffix: string): Promise<Map<string, { name: string; content: string }>> {
  const out = new Map<string, { name: string; content: string }>();
  let files: string[];
  try {
    files = await readdir(dir);
  } catch {
    return out;
  }
  for (const file of files.sort()) {
    if (suffix && !file.endsWith(suffix)) continue;
    if (file.startsWith('.')) continue;
    const name = suffix ? file.slice(0, -suffix.length) : file;
    out.set(name.toLowerCase(), { name, content: await readFile(path.join(dir, file), 'utf8') });
  }
  return out;
}
