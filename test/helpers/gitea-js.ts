// The gitea-js compatibility harness: a real gitea-js client against a test server, the types gitea-js declares
// (read from its index.d.ts with the TypeScript compiler API at test time), a runtime check of responses against
// those types, and the list of gitea-js methods with whether forgekit routes them.
//
// gitea-js marks every field optional (swagger-typescript-api output), so "optional" says nothing about what a
// Gitea server sends. The check is therefore stricter than the types: every field of a gitea-js interface must be
// present with the declared JSON type, unless NOT_SERVED below names it with the reason; `null` only where NULLABLE
// says so. Each engineer adds the lines for the interfaces their plugin serves.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import ts from 'typescript';
import type { Test } from 'tap';
import { giteaApi, type Api } from 'gitea-js';
import { Router } from '../../core/router.js';
import type { HttpMethod, Plugin, RouteDef } from '../../core/plugin.js';
import type { TestForge } from './forge.js';

// ---- the client ----

/** A gitea-js client for the test server, signed in with a token (Bearer, as gitea-js sends it) or anonymous. */
export function giteaClient(f: TestForge, token?: string): Api<unknown> {
  return giteaApi(f.url, { token, customFetch: (...args: Parameters<typeof fetch>) => fetch(...args) });
}

/** Request params that sign one call in with Basic auth (token management needs a password). */
export function basicAuth(login: string, password: string): { headers: Record<string, string> } {
  return { headers: { Authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}` } };
}

/** What a gitea-js call settled with: gitea-js throws the Response for any non-2xx status; both are returned here. */
export interface Settled<T> {
  status: number;
  data: T;
  error: unknown;
  headers: Headers;
}

export async function settle<T>(call: Promise<{ status: number; data: T; error: unknown; headers: Headers }>): Promise<Settled<T>> {
  try {
    const r = await call;
    return { status: r.status, data: r.data, error: r.error, headers: r.headers };
  } catch (thrown) {
    const r = thrown as { status?: number; data: T; error: unknown; headers: Headers };
    if (typeof r?.status !== 'number') throw thrown; // a network failure, not an HTTP answer
    return { status: r.status, data: r.data, error: r.error, headers: r.headers };
  }
}

// ---- gitea-js's declared types ----

export type TypeDesc =
  | { kind: 'string' | 'number' | 'boolean' | 'any' | 'null' | 'void' }
  | { kind: 'literal'; value: string | number | boolean }
  | { kind: 'array'; items: TypeDesc }
  | { kind: 'ref'; name: string }
  | { kind: 'object'; fields: Record<string, FieldDesc> }
  | { kind: 'record'; values: TypeDesc }
  | { kind: 'union'; options: TypeDesc[] };

export interface FieldDesc {
  optional: boolean;
  type: TypeDesc;
}

export interface GiteaMethod {
  /** The namespace on the client (`repos`, `user`, …). */
  namespace: string;
  /** The method's key on the namespace, e.g. `repoGet`. */
  key: string;
  /** Gitea's swagger tag (`repository`, `user`, `organization`, `admin`, `miscellaneous`, `settings`, …). */
  tag: string;
  /** Gitea's operationId, e.g. `repoGet`. */
  operationId: string;
  method: HttpMethod;
  /** Gitea's path template, e.g. `/repos/{owner}/{repo}`. */
  path: string;
  /** The declared type of a successful response's data. */
  response: TypeDesc;
}

export interface GiteaTypes {
  interfaces: Map<string, Record<string, FieldDesc>>;
  aliases: Map<string, TypeDesc>;
  methods: GiteaMethod[];
}

let loaded: GiteaTypes | undefined;

/** The path of gitea-js's index.d.ts (the CommonJS types; the .d.mts is the same text). */
export function giteaDtsPath(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('gitea-js')), 'index.d.ts');
}

/** Every interface, type alias and API method gitea-js declares. Parsed once per process. */
export function giteaTypes(): GiteaTypes {
  if (loaded) return loaded;
  const file = giteaDtsPath();
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const interfaces = new Map<string, Record<string, FieldDesc>>();
  const aliases = new Map<string, TypeDesc>();
  const methods: GiteaMethod[] = [];
  for (const statement of source.statements) {
    if (ts.isInterfaceDeclaration(statement)) {
      interfaces.set(statement.name.text, membersOf(statement.members));
    } else if (ts.isTypeAliasDeclaration(statement)) {
      aliases.set(statement.name.text, describe(statement.type));
    } else if (ts.isClassDeclaration(statement) && statement.name?.text === 'Api') {
      for (const member of statement.members) {
        if (!ts.isPropertyDeclaration(member) || !member.type || !ts.isTypeLiteralNode(member.type)) continue;
        const namespace = (member.name as ts.Identifier).text;
        for (const op of member.type.members) {
          if (!ts.isPropertySignature(op) || !op.type || !ts.isFunctionTypeNode(op.type)) continue;
          const doc = op.getFullText(source);
          // "@tags repository, user": the first tag is the method's group.
          const tag = /@tags ([^\s,]+)/.exec(doc)?.[1];
          const name = /@name (\S+)/.exec(doc)?.[1];
          const request = /@request (\w+):(\S+)/.exec(doc);
          if (!tag || !name || !request) throw new Error(`gitea-js method ${namespace}.${op.name.getText(source)} has no @tags/@name/@request`);
          methods.push({
            namespace,
            key: op.name.getText(source),
            tag,
            operationId: name[0]!.toLowerCase() + name.slice(1),
            method: request[1] as HttpMethod,
            path: request[2]!,
            response: responseType(op.type.type),
          });
        }
      }
    }
  }
  loaded = { interfaces, aliases, methods };
  return loaded;
}

function membersOf(members: ts.NodeArray<ts.TypeElement>): Record<string, FieldDesc> {
  const fields: Record<string, FieldDesc> = {};
  for (const m of members) {
    if (ts.isPropertySignature(m) && m.type) {
      const name = ts.isIdentifier(m.name) || ts.isStringLiteral(m.name) ? m.name.text : m.name.getText();
      fields[name] = { optional: m.questionToken !== undefined, type: describe(m.type) };
    }
  }
  return fields;
}

/** `Promise<HttpResponse<T, E>>` → T. */
function responseType(node: ts.TypeNode): TypeDesc {
  if (ts.isTypeReferenceNode(node) && node.typeArguments?.length) {
    const inner = node.typeArguments[0]!;
    if (ts.isTypeReferenceNode(inner) && inner.typeName.getText() === 'HttpResponse' && inner.typeArguments?.length) {
      return describe(inner.typeArguments[0]!);
    }
  }
  return { kind: 'any' };
}

function describe(node: ts.TypeNode): TypeDesc {
  switch (node.kind) {
    case ts.SyntaxKind.StringKeyword: return { kind: 'string' };
    case ts.SyntaxKind.NumberKeyword: return { kind: 'number' };
    case ts.SyntaxKind.BooleanKeyword: return { kind: 'boolean' };
    case ts.SyntaxKind.VoidKeyword:
    case ts.SyntaxKind.UndefinedKeyword: return { kind: 'void' };
    case ts.SyntaxKind.NullKeyword: return { kind: 'null' };
    case ts.SyntaxKind.AnyKeyword:
    case ts.SyntaxKind.UnknownKeyword:
    case ts.SyntaxKind.ObjectKeyword: return { kind: 'any' };
  }
  if (ts.isParenthesizedTypeNode(node)) return describe(node.type);
  if (ts.isArrayTypeNode(node)) return { kind: 'array', items: describe(node.elementType) };
  if (ts.isUnionTypeNode(node)) {
    const options = node.types.map(describe).filter((d) => d.kind !== 'void');
    return options.length === 1 ? options[0]! : { kind: 'union', options };
  }
  if (ts.isLiteralTypeNode(node)) {
    const lit = node.literal;
    if (ts.isStringLiteral(lit)) return { kind: 'literal', value: lit.text };
    if (ts.isNumericLiteral(lit)) return { kind: 'literal', value: Number(lit.text) };
    if (lit.kind === ts.SyntaxKind.TrueKeyword) return { kind: 'literal', value: true };
    if (lit.kind === ts.SyntaxKind.FalseKeyword) return { kind: 'literal', value: false };
    if (lit.kind === ts.SyntaxKind.NullKeyword) return { kind: 'null' };
  }
  if (ts.isTypeLiteralNode(node)) {
    // `{ [key: string]: X }` is a record; anything else an inline object.
    const index = node.members.find(ts.isIndexSignatureDeclaration);
    if (index && node.members.length === 1) return { kind: 'record', values: describe(index.type) };
    return { kind: 'object', fields: membersOf(node.members) };
  }
  if (ts.isTypeReferenceNode(node)) {
    const name = node.typeName.getText();
    if (name === 'Record' && node.typeArguments?.length === 2) return { kind: 'record', values: describe(node.typeArguments[1]!) };
    if (name === 'Array' && node.typeArguments?.length === 1) return { kind: 'array', items: describe(node.typeArguments[0]!) };
    if (name === 'File' || name === 'Blob') return { kind: 'any' };
    return { kind: 'ref', name };
  }
  return { kind: 'any' };
}

// ---- what forgekit does not send (yet), and where it sends null ----

/**
 * Fields of gitea-js interfaces forgekit does not send, with the reason. Everything else must be present. Keep the
 * reasons honest: "no such capability yet" is fine; delete the line when the field starts being served.
 */
export const NOT_SERVED: Record<string, Record<string, string>> = {
  Repository: {
    external_tracker: 'no external issue tracker support',
    external_wiki: 'no external wiki support',
    internal_tracker: 'the issue tracker settings belong to the issues capability',
    repo_transfer: 'no repository transfers (Gitea sends it only while a transfer is pending)',
    projects_mode: 'no projects capability',
    mirror_updated: 'only mirrors carry it',
  },
  Email: {
    user_id: 'Gitea sends it only from the admin email search',
    username: 'Gitea sends it only from the admin email search',
  },
};

/** `Interface.field` pairs that may be null, with why (Go pointers and our "never the zero time" rule). */
export const NULLABLE: Record<string, string> = {
  'Repository.parent': 'the spec sends parent: null for a repository that is not a fork',
  'Repository.mirror_updated': 'null until a mirror has synced (never the zero time)',
  'Repository.archived_at': 'null while the repository is not archived (never the zero time)',
  'User.last_login': 'null for an account that never signed in, and for viewers other than the account and site admins',
  'GPGKey.expires_at': 'null for a key that never expires (never the zero time)',
  'WatchInfo.reason': 'always null, as in Gitea',
  'Cron.prev': 'null until the task first ran (never the zero time)',
  'Cron.next': 'null while the task is not scheduled (never the zero time)',
  'PayloadCommit.added': 'null in a branch\'s commit, as in Gitea (no file lists there)',
  'PayloadCommit.removed': 'null in a branch\'s commit, as in Gitea (no file lists there)',
  'PayloadCommit.modified': 'null in a branch\'s commit, as in Gitea (no file lists there)',
  // contents (Go pointers and nil slices in Gitea's structs, sent as null)
  'ContentsResponse.encoding': 'null for anything but a file (*string)',
  'ContentsResponse.content': 'null for anything but a file, and in directory listings (*string)',
  'ContentsResponse.target': 'null unless the entry is a symlink (*string)',
  'ContentsResponse.submodule_git_url': 'null unless the entry is a submodule (*string)',
  'ContentsResponse.download_url': 'null for directories and submodules (*string)',
  'FileDeleteResponse.content': 'always null: a deleted file has no contents (Gitea sends nil)',
  // pulls: Gitea's Go pointers and nil slices of a pull request that is not merged, closed, assigned or scheduled
  'PullRequest.assignee': 'null while nobody is assigned (Gitea: nil *User)',
  'PullRequest.assignees': 'null while nobody is assigned (Gitea: nil slice)',
  'PullRequest.closed_at': 'null while open (never the zero time)',
  'PullRequest.due_date': 'null without a due date (never the zero time)',
  'PullRequest.merge_commit_sha': 'null until merged (Gitea: nil *string)',
  'PullRequest.merged_at': 'null until merged (never the zero time)',
  'PullRequest.merged_by': 'null until merged (Gitea: nil *User)',
  'PullRequest.milestone': 'null without a milestone (Gitea: nil *Milestone)',
  'PRBranchInfo.repo': 'null when the caller cannot read the head repository (a private fork never leaks)',
  'PullReview.team': 'null for a review by a user (Gitea: nil *Team)',
  'PullReview.user': 'null for a team review request (Gitea: nil *User)',
  'PullReviewComment.resolver': 'null while the conversation is not resolved (Gitea: nil *User)',
  'Commit.author': 'null when no account matches the commit email (Gitea: nil *User)',
  'Commit.committer': 'null when no account matches the commit email (Gitea: nil *User)',
  'PayloadCommitVerification.signer': 'null for an unsigned or unverified commit (Gitea: nil *PayloadUser)',
};

// ---- the runtime check ----

const JSON_TYPE = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/**
 * Problems of `value` against a gitea-js type: a wrong JSON type anywhere, a field of an interface missing (unless
 * NOT_SERVED names it), `null` where NULLABLE does not allow it. Empty when it conforms.
 */
export function shapeProblems(value: unknown, type: TypeDesc, at = '$', owner?: string, extra: Exemptions = {}): string[] {
  const types = giteaTypes();
  switch (type.kind) {
    case 'any': return [];
    case 'void': return [];
    case 'null': return value === null ? [] : [`${at}: expected null, got ${JSON_TYPE(value)}`];
    case 'string':
    case 'boolean':
      return typeof value === type.kind ? [] : [`${at}: expected ${type.kind}, got ${JSON_TYPE(value)}`];
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? [] : [`${at}: expected number, got ${JSON_TYPE(value)}`];
    case 'literal':
      return value === type.value ? [] : [`${at}: expected ${JSON.stringify(type.value)}, got ${JSON.stringify(value)}`];
    case 'array':
      if (!Array.isArray(value)) return [`${at}: expected array, got ${JSON_TYPE(value)}`];
      return value.flatMap((item, i) => shapeProblems(item, type.items, `${at}[${i}]`, undefined, extra));
    case 'record':
      if (JSON_TYPE(value) !== 'object') return [`${at}: expected object, got ${JSON_TYPE(value)}`];
      return Object.entries(value as object).flatMap(([k, v]) => shapeProblems(v, type.values, `${at}.${k}`, undefined, extra));
    case 'union': {
      const each = type.options.map((o) => shapeProblems(value, o, at, owner, extra));
      return each.some((p) => p.length === 0) ? [] : [`${at}: matches none of the union (${each.map((p) => p[0]).join(' | ')})`];
    }
    case 'ref': {
      const alias = types.aliases.get(type.name);
      if (alias) return shapeProblems(value, alias, at, type.name, extra);
      const fields = types.interfaces.get(type.name);
      if (!fields) return [`${at}: gitea-js declares no type ${type.name}`];
      return objectProblems(value, fields, at, type.name, extra);
    }
    case 'object':
      return objectProblems(value, type.fields, at, owner, extra);
  }
}

/** Per-call additions to NOT_SERVED: interface → field → why this answer leaves it out. */
export type Exemptions = Record<string, Record<string, string>>;

function objectProblems(value: unknown, fields: Record<string, FieldDesc>, at: string, iface: string | undefined, extra: Exemptions): string[] {
  if (JSON_TYPE(value) !== 'object') return [`${at}: expected object${iface ? ` ${iface}` : ''}, got ${JSON_TYPE(value)}`];
  const obj = value as Record<string, unknown>;
  const problems: string[] = [];
  const exempt = iface ? { ...NOT_SERVED[iface], ...extra[iface] } : {};
  for (const [name, field] of Object.entries(fields)) {
    const v = obj[name];
    if (v === undefined) {
      // Inline objects (response envelopes) keep gitea-js's optionality; interfaces are held to NOT_SERVED.
      if (iface ? exempt[name] === undefined : !field.optional) problems.push(`${at}.${name}: missing`);
      continue;
    }
    if (v === null) {
      if (!iface || NULLABLE[`${iface}.${name}`] === undefined) problems.push(`${at}.${name}: null`);
      continue;
    }
    problems.push(...shapeProblems(v, field.type, `${at}.${name}`, undefined, extra));
  }
  return problems;
}

/** The declared response type of a gitea-js method, by operationId. */
export function methodByOperation(operationId: string): GiteaMethod {
  const found = giteaTypes().methods.find((m) => m.operationId === operationId);
  if (!found) throw new Error(`gitea-js has no method ${operationId}`);
  return found;
}

/** Problems of a response body against what gitea-js declares for that operation's success response. */
export function responseProblems(operationId: string, data: unknown, extra: Exemptions = {}): string[] {
  return shapeProblems(data, methodByOperation(operationId).response, '$', undefined, extra);
}

// ---- which methods forgekit serves ----

export interface Served {
  method: GiteaMethod;
  route: RouteDef | null;
}

/**
 * Every gitea-js method with the forgekit route that answers its method and path (matched with the kernel's own
 * router over the plugins' API routes, path parameters filled with a sample value), or null.
 */
export function servedMethods(plugins: readonly Plugin[]): Served[] {
  const router = new Router<RouteDef>();
  for (const plugin of plugins) {
    for (const route of plugin.routes ?? []) if ((route.mount ?? 'api') === 'api') router.add(route.method, route.path, route);
  }
  const template = (p: string) => p.replace(/\{[^}]+\}/g, '{}');
  return giteaTypes().methods.map((method) => {
    const sample = method.path.replace(/\{[^}]+\}/g, 'x1');
    const route = router.find(method.method, sample)?.route ?? null;
    if (!route) return { method, route: null };
    // The same path template, not a static segment of Gitea's caught by one of our parameters
    // (`/repos/issues/search` is not `/repos/{owner}/{repo}`); a trailing wildcard takes the rest of the path.
    const ours = route.path.replace(/:[^/]+/g, '{}');
    const theirs = template(method.path);
    const same = ours.endsWith('*') ? theirs.startsWith(ours.slice(0, -1)) : ours === theirs;
    return { method, route: same ? route : null };
  });
}

/** Asserts a gitea-js call's body conforms to the operation's declared response type (see shapeProblems). */
export function assertConforms(t: Test, operationId: string, data: unknown, extra: Exemptions = {}): void {
  t.same(responseProblems(operationId, data, extra), [], `${operationId}: the body has every field gitea-js declares, with its type`);
}
