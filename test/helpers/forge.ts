// Test helper: a real forgekit server on 127.0.0.1 with a fresh data dir, a site admin, and a small HTTP client.
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { createForge, builtinPlugins, type Forge } from '../../plugins/index.js';
import { httpRequest, type ClientResponse } from './http-client.js';
import type { Plugin } from '../../core/plugin.js';
import type { DeepPartial, ForgeConfig } from '../../core/config.js';

export interface TestUser {
  id: number;
  username: string;
  password: string;
  email: string;
  token: string;
}

export interface RequestOptions {
  /** A raw body (string or Buffer) sent as is. */
  body?: string | Buffer;
  /** A JSON body (sets Content-Type: application/json). */
  json?: unknown;
  headers?: Record<string, string>;
  /** Sent as `Authorization: token <t>`. */
  token?: string;
  /** Sent as Basic auth. */
  basic?: [string, string];
  /** The path is under the site root instead of the API prefix. */
  root?: boolean;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export interface TestForge {
  forge: Forge;
  url: string;
  api: string;
  dataDir: string;
  admin: TestUser;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  createUser(input?: { username?: string; password?: string; email?: string; admin?: boolean }): Promise<TestUser>;
  close(): Promise<void>;
}

export interface StartOptions {
  config?: DeepPartial<ForgeConfig>;
  env?: Record<string, string | undefined>;
  disabledPlugins?: string[];
  /** Keep the data dir on close (restart tests). */
  dataDir?: string;
  /** Plugins added to the built-in ones (test-only routes). */
  extraPlugins?: Plugin<any>[];
}

export { freePort } from '../../bench/free-port.js';
import { freePort } from '../../bench/free-port.js';

/** A setup step's response that must have `status`: anything else stops the test with what came back. */
export function checkStatus<R extends { status: number; text: string }>(res: R, status: number): R {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  return res;
}

/** `checkStatus` of a request still under way. */
export async function expectStatus<R extends { status: number; text: string }>(res: Promise<R>, status: number): Promise<R> {
  return checkStatus(await res, status);
}

/** `call(method, path, token, json?, status = defaultStatus)`: a setup request that must answer `status`; its JSON body. */
export function jsonCaller(f: Pick<TestForge, 'request'>, defaultStatus = 200) {
  return async (method: string, path: string, token: string | undefined, json?: unknown, status = defaultStatus): Promise<any> => {
    const res = await f.request(method, path, { token, ...(json !== undefined ? { json } : {}) });
    if (res.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${res.status}: ${res.text}`);
    return res.json;
  };
}

let userCounter = 0;

export async function startForge(options: StartOptions = {}): Promise<TestForge> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'forgekit-test-')));
  const adminPassword = 'admin-password-1';
  const boot = async (port: number) => createForge({
    plugins: options.extraPlugins ? [...builtinPlugins, ...options.extraPlugins] : undefined,
    env: { FORGEKIT_MONGODB_URI: process.env.FORGEKIT_MONGODB_URI, ...options.env },
    config: {
      port,
      host: '127.0.0.1',
      dataDir,
      logLevel: (process.env.FORGEKIT_TEST_LOG_LEVEL as ForgeConfig['logLevel']) ?? 'silent',
      admin: { username: 'root', password: adminPassword, email: 'root@example.com' },
      ...(options.disabledPlugins ? { disabledPlugins: options.disabledPlugins } : {}),
      ...options.config,
    },
  });
  let forge: Forge;
  let url: string;
  for (let attempt = 1; ; attempt++) {
    // A forge that fails to boot (tests of refused configurations) must not leave its data dir behind.
    forge = await boot(await freePort()).catch(async (err: unknown) => {
      if (ownDir) await rm(dataDir, { recursive: true, force: true });
      throw err;
    });
    try {
      ({ url } = await forge.listen());
      break;
    } catch (err) {
      // Taken between the choice and the listen (by another test's server): boot again on another port.
      await forge.close();
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt === 3) {
        if (ownDir) await rm(dataDir, { recursive: true, force: true });
        throw err;
      }
    }
  }
  const api = `${url}/api/v1`;

  async function request(method: string, p: string, o: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...o.headers };
    let body: string | Buffer | undefined = o.body;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers['Content-Type'] ??= 'application/json';
    }
    if (o.token) headers.Authorization = `token ${o.token}`;
    if (o.basic) headers.Authorization = `Basic ${Buffer.from(`${o.basic[0]}:${o.basic[1]}`).toString('base64')}`;
    const send = () => httpRequest((o.root ? url : api) + p, { method, headers, ...(body !== undefined ? { body } : {}) });
    let res: ClientResponse;
    try {
      res = await send();
    } catch (err) {
      // A reused keep-alive connection that the server closed as the request went out: a test's own synchronous work
      // (an index rebuilt in-process) blocked the loop past keepAliveTimeout before the agent saw the close.
      // Idempotent requests are sent again once, as browsers do; anything else fails.
      const code = (err as { code?: string }).code;
      if ((method !== 'GET' && method !== 'HEAD') || (code !== 'ECONNRESET' && code !== 'EPIPE')) throw err;
      res = await send();
    }
    const { text } = res;
    let json: unknown;
    if (text && (res.headers.get('content-type') ?? '').includes('json')) {
      try { json = JSON.parse(text); } catch { json = undefined; }
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  async function tokenFor(username: string, password: string): Promise<string> {
    const res = await request('POST', `/users/${username}/tokens`, { basic: [username, password], json: { name: `test-${randomUUID().slice(0, 8)}`, scopes: ['all'] } });
    if (res.status !== 201) throw new Error(`token creation for ${username} failed: ${res.status} ${res.text}`);
    return res.json.sha1;
  }

  const adminAccount = await request('GET', '/users/root');
  const admin: TestUser = { id: adminAccount.json.id, username: 'root', password: adminPassword, email: 'root@example.com', token: await tokenFor('root', adminPassword) };

  async function createUser(input: { username?: string; password?: string; email?: string; admin?: boolean } = {}): Promise<TestUser> {
    const username = input.username ?? `user${++userCounter}x${process.pid}`;
    const password = input.password ?? `pw-${username}-secret`;
    const email = input.email ?? `${username}@example.com`;
    const res = await request('POST', '/admin/users', { token: admin.token, json: { username, password, email, admin: input.admin } });
    if (res.status !== 201) throw new Error(`user creation failed: ${res.status} ${res.text}`);
    return { id: res.json.id, username, password, email, token: await tokenFor(username, password) };
  }

  return {
    forge, url, api, dataDir, admin, request, createUser,
    async close() {
      await forge.close();
      if (ownDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
