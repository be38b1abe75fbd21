// One error class and one table of codes → HTTP status. The edge turns any thrown error into a reply.

export interface ErrorCodeInfo {
  status: number;
  /** What the code means; the README's error table is checked against these by a test. */
  description: string;
  /**
   * Every error of this code answers with this one message, whatever the thrower said: a 404 for "missing" and
   * for "not visible to you" must read the same (decisions.md), so it reveals nothing.
   */
  fixedMessage?: string;
}

export const ERROR_CODES = {
  BAD_JSON: { status: 400, description: 'The request body is not well-formed JSON.' },
  BAD_REQUEST: { status: 400, description: 'The request is well-formed but cannot apply to this resource (e.g. mirror-sync of a repository that is not a mirror).' },
  UNAUTHORIZED: { status: 401, description: 'The route needs a signed-in caller (or Basic auth with a password) and none was given.' },
  INVALID_CREDENTIALS: { status: 401, description: 'Credentials were presented but are not valid (unknown token, wrong password).' },
  FORBIDDEN: { status: 403, description: 'The caller is known but may not do this.' },
  NOT_FOUND: {
    status: 404,
    description: 'Unknown path, or a user, organization, repository or key the caller cannot see. One fixed message for both.',
    fixedMessage: "The target couldn't be found.",
  },
  METHOD_NOT_ALLOWED: { status: 405, description: 'The path exists but not with this method; `Allow` lists the methods.' },
  CONFLICT: { status: 409, description: 'The resource already exists (repository name, fork).' },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'The request body is larger than the configured limit.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'A JSON body was sent without a JSON Content-Type.' },
  LOCKED: { status: 423, description: 'The repository is archived (read-only): Gitea\'s answer to writes of its contents, issues and comments.' },
  TOO_MANY_REQUESTS: { status: 429, description: 'Too many failed sign-ins from this address or for this account, or too many git transfers of one repository at once; `Retry-After` says when to try again.' },
  VALIDATION: { status: 422, description: 'The input breaks a rule; the message names the field.' },
  SERVICE_UNAVAILABLE: { status: 503, description: 'The server is at a configured limit (git transfers at once); `Retry-After` says when to try again.' },
  INTERNAL: { status: 500, description: 'An unexpected failure; the body never carries internals.' },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class ForgeError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers (Allow, WWW-Authenticate). */
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message?: string, headers: Record<string, string> = {}) {
    const info: ErrorCodeInfo = ERROR_CODES[code];
    // A 4xx is an answer, not a fault: no stack is captured for it (capturing one was ~20% of a 404's cost, and a
    // flood of 404s is what scanners send). 5xx keep theirs for the log.
    const limit = Error.stackTraceLimit;
    if (info.status < 500) Error.stackTraceLimit = 0;
    super(info.fixedMessage ?? message ?? info.description);
    Error.stackTraceLimit = limit;
    this.name = 'ForgeError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.headers = headers;
  }
}

export function isForgeError(err: unknown): err is ForgeError {
  return err instanceof ForgeError;
}

/** Short constructors for the codes plugins throw most. */
export const fail = {
  notFound: () => new ForgeError('NOT_FOUND'),
  forbidden: (message = 'forbidden') => new ForgeError('FORBIDDEN', message),
  /** `field` is named in the message so clients know what to fix. */
  validation: (field: string, message: string) => new ForgeError('VALIDATION', `${field}: ${message}`),
  conflict: (message: string) => new ForgeError('CONFLICT', message),
  badRequest: (message: string) => new ForgeError('BAD_REQUEST', message),
  unauthorized: (message = 'authentication required') =>
    new ForgeError('UNAUTHORIZED', message, { 'WWW-Authenticate': 'Basic realm="forgekit", charset="UTF-8"' }),
};
