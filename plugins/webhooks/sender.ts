// Sends one delivery: Gitea's headers and signatures, the checked address pinned (no DNS rebinding), no redirects
// followed, a timeout, and the response body read up to a bound.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';
import { checkTarget, TargetRefused, type HostMatchList, type LookupFn } from './hosts.js';
import { headerEvent, type HookEventType } from './event-types.js';

export interface SendTarget {
  url: string;
  contentType: 'json' | 'form';
  httpMethod: 'POST' | 'GET';
  secret: string;
  authorization: string;
}

export interface SendInput {
  uuid: string;
  type: HookEventType;
  payload: string;
  target: SendTarget;
}

export interface SendOptions {
  allowed: HostMatchList;
  timeoutMs: number;
  maxResponseBytes: number;
  lookup?: LookupFn;
  userAgent: string;
}

export interface SendResult {
  ok: boolean;
  /** Worth trying again later (network failure, timeout, 5xx, 408, 429); false for a refusal or another answer. */
  retry: boolean;
  error: string;
  request: { url: string; method: string; headers: Record<string, string> };
  response: { status: number; headers: Record<string, string>; body: string } | null;
  durationMs: number;
}

/** Headers Gitea sends with every delivery (services/webhook/deliver.go). */
export function deliveryHeaders(input: Pick<SendInput, 'uuid' | 'type' | 'payload'>, secret: string): Record<string, string> {
  const event = headerEvent(input.type);
  let sha1 = '';
  let sha256 = '';
  if (secret) {
    sha1 = createHmac('sha1', secret).update(input.payload).digest('hex');
    sha256 = createHmac('sha256', secret).update(input.payload).digest('hex');
  }
  return {
    'X-Gitea-Delivery': input.uuid,
    'X-Gitea-Event': event,
    'X-Gitea-Event-Type': input.type,
    'X-Gitea-Signature': sha256,
    'X-Gogs-Delivery': input.uuid,
    'X-Gogs-Event': event,
    'X-Gogs-Event-Type': input.type,
    'X-Gogs-Signature': sha256,
    'X-Hub-Signature': `sha1=${sha1}`,
    'X-Hub-Signature-256': `sha256=${sha256}`,
    'X-GitHub-Delivery': input.uuid,
    'X-GitHub-Event': event,
    'X-GitHub-Event-Type': input.type,
  };
}

/** The Authorization value as the API and the delivery history show it: the scheme kept, the credential hidden. */
export function maskAuthorization(value: string): string {
  if (!value) return '';
  const space = value.indexOf(' ');
  return space > 0 ? `${value.slice(0, space)} ********` : '********';
}

export async function send(input: SendInput, opts: SendOptions): Promise<SendResult> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number((process.hrtime.bigint() - started) / 1_000_000n);
  const { target } = input;
  const headers: Record<string, string> = { 'User-Agent': opts.userAgent, ...deliveryHeaders(input, target.secret) };
  let body: string | undefined;
  let requestUrl = target.url;
  if (target.httpMethod === 'GET') {
    try {
      const u = new URL(target.url);
      u.searchParams.set('payload', input.payload);
      requestUrl = u.toString();
    } catch {
      // checkTarget below reports the bad URL
    }
  } else if (target.contentType === 'form') {
    body = new URLSearchParams({ payload: input.payload }).toString();
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
  } else {
    body = input.payload;
    headers['Content-Type'] = 'application/json';
  }
  if (target.authorization) headers.Authorization = target.authorization;
  const shown = { ...headers };
  if (shown.Authorization) shown.Authorization = maskAuthorization(shown.Authorization);
  const request = { url: target.url, method: target.httpMethod, headers: shown };

  let checked;
  try {
    checked = await checkTarget(requestUrl, opts.allowed, opts.lookup);
  } catch (err) {
    const reason = err instanceof TargetRefused ? err.message : String(err);
    return { ok: false, retry: false, error: `target refused: ${reason}`, request, response: null, durationMs: elapsed() };
  }
  const { url, address, family } = checked!;
  // Connect to the address that was checked, whatever a second DNS answer would say.
  const pinned: LookupFunction = (_host, options, cb) => {
    if ((options as { all?: boolean }).all) (cb as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address, family }]);
    else cb(null, address, family);
  };
  const mod = url.protocol === 'https:' ? https : http;
  if (body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(body));

  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<SendResult, 'request' | 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, request, durationMs: elapsed() });
    };
    const req = mod.request(url, { method: target.httpMethod, headers, lookup: pinned, agent: false, servername: net.isIP(checked!.hostname) ? undefined : checked!.hostname }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let truncated = false;
      res.on('data', (chunk: Buffer) => {
        if (truncated) return;
        const room = opts.maxResponseBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, Math.max(0, room)));
          size += Math.max(0, room);
          truncated = true;
          res.destroy();
          done();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      const done = () => {
        const status = res.statusCode ?? 0;
        const responseHeaders: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) responseHeaders[k] = Array.isArray(v) ? v.join(',') : v;
        const ok = status >= 200 && status < 300;
        finish({
          ok,
          retry: !ok && (status >= 500 || status === 408 || status === 429),
          error: ok ? '' : status >= 300 && status < 400 ? `redirect (${status}) not followed` : `HTTP ${status}`,
          response: { status, headers: responseHeaders, body: Buffer.concat(chunks).toString('utf8') + (truncated ? '…' : '') },
        });
      };
      res.on('end', done);
      res.on('error', (err) => finish({ ok: false, retry: true, error: `reading the response: ${err.message}`, response: null }));
    });
    const timer = setTimeout(() => {
      req.destroy(new Error(`no answer within ${opts.timeoutMs} ms`));
    }, opts.timeoutMs);
    req.on('error', (err) => finish({ ok: false, retry: true, error: `Delivery: ${err.message}`, response: null }));
    req.end(body);
  });
}
