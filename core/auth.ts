// Who is calling: the credential transports (token header, Bearer, query token, Basic) and the route auth levels.
// How a password or a token is checked belongs to the identity plugins, registered through `provide()`.
import type { IncomingMessage } from 'node:http';
import { ForgeError, fail } from './errors.js';
import type { AuthLevel, AuthRegistry, Caller, CredentialVerifiers } from './plugin.js';

type Credentials =
  | { kind: 'token'; token: string }
  | { kind: 'basic'; login: string; password: string };

/** A token as forgekit issues it (40 lower-case hex); used to try the cheap token check before a slow password hash. */
const TOKEN_SHAPE = /^[0-9a-f]{40}$/;

export class Authenticator implements AuthRegistry {
  private verifiers: CredentialVerifiers = {};

  provide(verifiers: CredentialVerifiers): void {
    this.verifiers = { ...this.verifiers, ...verifiers };
  }

  /**
   * Resolves the caller for a route's auth level; throws 401/403 as the level demands. An answer known at once (no
   * credentials, or a token its verifier has just checked) is returned as it is, not as a promise: most requests
   * await nothing here (measured with the session's list changes in bench/RESULTS.md, "Fewer promises per request").
   */
  authenticate(req: IncomingMessage, query: Record<string, unknown>, level: AuthLevel): Caller | null | Promise<Caller | null> {
    if (level === 'public') return null;
    const credentials = extractCredentials(req, query);
    if (credentials === null) return admit(null, level);
    if (credentials.kind === 'token') {
      const { token } = this.verifiers;
      const caller = token ? token(credentials.token) : null;
      // Any thenable is waited for (an embedder's verifier may use another promise library): only a plain answer is one.
      return isThenable(caller) ? Promise.resolve(caller).then((c) => admitToken(c, level)) : admitToken(caller, level);
    }
    return this.verifyBasic(credentials, req.socket?.remoteAddress ?? '').then((caller) => admit(caller, level));
  }

  private async verifyBasic(credentials: Extract<Credentials, { kind: 'basic' }>, address: string): Promise<Caller> {
    const { token, password } = this.verifiers;
    const { login, password: secret } = credentials;
    // Git clients send a token as the Basic password (or as the user name with an empty/x-oauth-basic password).
    if (token && TOKEN_SHAPE.test(secret)) {
      const caller = await token(secret);
      if (caller) return caller;
    }
    if (token && TOKEN_SHAPE.test(login) && (secret === '' || secret === 'x-oauth-basic')) {
      const caller = await token(login);
      if (caller) return caller;
    }
    const caller = password && login ? await password(login, secret, { address }) : null;
    if (!caller) throw invalid('invalid username or password');
    return caller;
  }
}

function isThenable(value: unknown): value is PromiseLike<Caller | null> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** The caller if the route's auth level lets it in; else 401 (no caller, or no password where one is required) or 403. */
function admit(caller: Caller | null, level: Exclude<AuthLevel, 'public'>): Caller | null {
  switch (level) {
    case 'optional':
      return caller;
    case 'user':
      if (!caller) throw fail.unauthorized();
      return caller;
    case 'basic':
      if (!caller || caller.via !== 'password') throw fail.unauthorized('basic authentication with a password is required');
      return caller;
    case 'admin':
      if (!caller) throw fail.unauthorized();
      if (!caller.isAdmin) throw fail.forbidden('site administrator access is required');
      return caller;
  }
}

/** A token's caller let in by the level; an unknown token is 401 whatever the level (a wrong credential is refused). */
function admitToken(caller: Caller | null, level: Exclude<AuthLevel, 'public'>): Caller | null {
  if (!caller) throw invalid('invalid access token');
  return admit(caller, level);
}

function invalid(message: string): ForgeError {
  return new ForgeError('INVALID_CREDENTIALS', message, { 'WWW-Authenticate': 'Basic realm="forgekit", charset="UTF-8"' });
}

function extractCredentials(req: IncomingMessage, query: Record<string, unknown>): Credentials | null {
  const header = req.headers.authorization;
  if (header) {
    const space = header.indexOf(' ');
    const scheme = (space === -1 ? header : header.slice(0, space)).toLowerCase();
    const value = space === -1 ? '' : header.slice(space + 1).trim();
    if ((scheme === 'token' || scheme === 'bearer') && value) return { kind: 'token', token: value };
    if (scheme === 'basic' && value) {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon === -1) throw invalid('malformed basic credentials');
      return { kind: 'basic', login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
    }
    throw invalid('unsupported authorization scheme');
  }
  const fromQuery = firstString(query.token) ?? firstString(query.access_token);
  if (fromQuery !== undefined) return { kind: 'token', token: fromQuery };
  return null;
}

function firstString(v: unknown): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' ? s : undefined;
}
