// The test servers' HTTP client: node:http on a keep-alive agent, answering like fetch() where the tests rely on it
// (URL normalisation, redirects followed, a WHATWG Headers object, UTF-8 text without a BOM). fetch (undici) cost
// about 0.6 ms of CPU more per request than node:http, and the suite sends tens of thousands of requests on a 2-core
// machine; tests that are about fetch-like clients (browsers, gitea-js) still use fetch itself.
import http from 'node:http';

export interface ClientResponse {
  status: number;
  headers: Headers;
  text: string;
}

export interface ClientRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

// Idle sockets are unref'd by the agent: they never keep a test process alive.
const agent = new http.Agent({ keepAlive: true });
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20; // fetch's limit
const utf8 = new TextDecoder(); // strips a leading BOM, as Response.text() does

function has(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((k) => k.toLowerCase() === name);
}

function once(url: URL, req: ClientRequest): Promise<{ status: number; raw: string[]; body: Buffer }> {
  const headers: Record<string, string> = { ...req.headers };
  // fetch's defaults, which some answers depend on (content negotiation, the agent named in logs).
  if (!has(headers, 'accept')) headers.accept = '*/*';
  if (!has(headers, 'user-agent')) headers['user-agent'] = 'node';
  if (req.body !== undefined) {
    // node:http frames a DELETE's (or GET's) body with neither Content-Length nor chunking unless told; fetch sends
    // the length, and names a string body text/plain.
    if (!has(headers, 'content-length')) headers['content-length'] = String(Buffer.byteLength(req.body));
    if (typeof req.body === 'string' && !has(headers, 'content-type')) headers['content-type'] = 'text/plain;charset=UTF-8';
  }
  return new Promise((resolve, reject) => {
    const r = http.request({
      host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path: url.pathname + url.search, method: req.method, headers, agent,
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('end', () => resolve({ status: res.statusCode!, raw: res.rawHeaders, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) }));
      res.once('error', reject);
    });
    r.once('error', reject);
    r.end(req.body);
  });
}

/** One request, its redirects followed like fetch's `redirect: 'follow'`. */
export async function httpRequest(target: string, req: ClientRequest): Promise<ClientResponse> {
  let url = new URL(target); // normalised as fetch normalises it (spaces encoded, dot segments resolved)
  let current = req;
  for (let hops = 0; ; hops++) {
    const res = await once(url, current);
    const headers = new Headers();
    for (let i = 0; i < res.raw.length; i += 2) headers.append(res.raw[i]!, res.raw[i + 1]!);
    const location = headers.get('location');
    if (!REDIRECTS.has(res.status) || location === null || hops === MAX_REDIRECTS) {
      return { status: res.status, headers, text: current.method === 'HEAD' ? '' : utf8.decode(res.body) };
    }
    const next = new URL(location, url);
    // 303, and 301/302 after a POST, become a GET without a body (the fetch standard's rule).
    const toGet = res.status === 303 ? current.method !== 'HEAD' : (res.status === 301 || res.status === 302) && current.method === 'POST';
    const kept = { ...current.headers };
    if (toGet) {
      for (const k of Object.keys(kept)) if (/^content-/i.test(k)) delete kept[k];
    }
    // Credentials are not carried to another origin.
    if (next.origin !== url.origin) for (const k of Object.keys(kept)) if (k.toLowerCase() === 'authorization') delete kept[k];
    current = toGet ? { method: 'GET', headers: kept } : { ...current, headers: kept };
    url = next;
  }
}
