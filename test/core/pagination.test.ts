// Link and X-Total-Count: the Link URLs keep the caller's query (minus credentials) with page and limit replaced.
import t from 'tap';
import { pageHeaders, pageWindow } from '../../core/pagination.js';

const API = 'http://127.0.0.1:3000/api/v1/';
const rc = (rawQuery: string) => ({ app: { urls: { api: API } }, path: '/user/repos', rawQuery, req: {} }) as any;

/** The reference: WHATWG URLSearchParams, as the first version built the links. */
function reference(rawQuery: string, page: number, limit: number): Array<[string, string]> {
  const params = new URLSearchParams(rawQuery);
  params.delete('token');
  params.delete('access_token');
  params.set('page', String(page));
  params.set('limit', String(limit));
  return [...params.entries()];
}

function linksOf(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of (header ?? '').matchAll(/<([^>]+)>; rel="(\w+)"/g)) out[m[2]!] = m[1]!;
  return out;
}

t.test('window defaults and bounds', async (t) => {
  t.same(pageWindow({}, { defaultLimit: 30, maxLimit: 50 }), { page: 1, limit: 30, skip: 0 });
  t.same(pageWindow({ page: 0, limit: 0 }, { defaultLimit: 30, maxLimit: 50 }), { page: 1, limit: 30, skip: 0 });
  t.same(pageWindow({ page: 3, limit: 500 }, { defaultLimit: 30, maxLimit: 50 }), { page: 3, limit: 50, skip: 100 });
});

t.test('one page: a count and no Link', async (t) => {
  t.same(pageHeaders(rc(''), 5, { page: 1, limit: 10 }), { 'X-Total-Count': '5' });
  t.same(pageHeaders(rc('page=1'), 0, { page: 1, limit: 10 }), { 'X-Total-Count': '0' });
});

t.test('the four relations', async (t) => {
  const h = pageHeaders(rc('page=3'), 100, { page: 3, limit: 10 });
  t.equal(h['X-Total-Count'], '100');
  t.same(linksOf(h.Link), {
    next: `${API}user/repos?page=4&limit=10`,
    last: `${API}user/repos?page=10&limit=10`,
    first: `${API}user/repos?page=1&limit=10`,
    prev: `${API}user/repos?page=2&limit=10`,
  });
  t.same(linksOf(pageHeaders(rc('page=20'), 100, { page: 20, limit: 10 }).Link).prev, `${API}user/repos?page=10&limit=10`, 'prev of a page past the end is the last page');
});

t.test('the query is kept, credentials never, page and limit replaced in place', async (t) => {
  const queries = [
    '', 'page=2', 'limit=5&page=2', 'q=app&page=2&sort=x', 'token=secret&page=2', 'access_token=s&q=a',
    '%74oken=secret&q=a', 'acc%65ss_token=s', 'q=a+b&page=2', 'q=a%20b', 'q=%C3%BCml%C3%A4ut', 'q=ü', 'page=2&page=5&limit=1&limit=9',
    'q=<script>', 'q="quoted"', 'flag', '&&q=x&', 'q=%zz', '%zz=1', 'q=a=b', 'x=1;y=2', 'tok%65n=1&token=2&Token=3',
  ];
  // Twice: the second pass is answered from the kept templates.
  for (const q of [...queries, ...queries]) {
    const link = linksOf(pageHeaders(rc(q), 1000, { page: 2, limit: 7 }).Link);
    for (const [rel, page] of [['next', 3], ['last', 143], ['first', 1], ['prev', 1]] as const) {
      const url = new URL(link[rel]!);
      t.equal(url.origin + url.pathname, `${API}user/repos`, `${q}: ${rel} path`);
      t.same([...url.searchParams.entries()], reference(q, page, 7), `${q}: ${rel} query means the same as the reference`);
      t.notOk(url.searchParams.has('token') || url.searchParams.has('access_token') || link[rel]!.includes('secret'), `${q}: no credentials`);
      t.notMatch(link[rel]!, /[<>" ]/, `${q}: nothing that breaks the header`);
    }
  }
});

t.test('kept Link texts follow the page, the total, the limit, the path and the base', async (t) => {
  const other = (path: string, api = API) => ({ app: { urls: { api } }, path, rawQuery: 'q=x&page=2', req: {} }) as any;
  const first = pageHeaders(other('/repos/search'), 100, { page: 2, limit: 10 }).Link;
  t.equal(pageHeaders(other('/repos/search'), 100, { page: 2, limit: 10 }).Link, first, 'the same request: the same text');
  t.same(linksOf(pageHeaders(other('/repos/search'), 100, { page: 3, limit: 10 }).Link).next, `${API}repos/search?q=x&page=4&limit=10`, 'another page');
  t.same(linksOf(pageHeaders(other('/repos/search'), 200, { page: 2, limit: 10 }).Link).last, `${API}repos/search?q=x&page=20&limit=10`, 'another total');
  t.same(linksOf(pageHeaders(other('/repos/search'), 100, { page: 2, limit: 20 }).Link).last, `${API}repos/search?q=x&page=5&limit=20`, 'another limit');
  t.same(linksOf(pageHeaders(other('/users/search'), 100, { page: 2, limit: 10 }).Link).next, `${API}users/search?q=x&page=3&limit=10`, 'another path');
  const base = 'https://git.example.com/api/v1/';
  t.same(linksOf(pageHeaders(other('/repos/search', base), 100, { page: 2, limit: 10 }).Link).next, `${base}repos/search?q=x&page=3&limit=10`, 'another base');
  t.equal(pageHeaders(other('/repos/search'), 100, { page: 2, limit: 10 }).Link, first, 'and the first again');
  t.notOk('Link' in pageHeaders(other('/repos/search'), 5, { page: 1, limit: 10 }), 'one page: no Link, whatever was kept');
  // More distinct queries than are kept: the oldest go, and every answer stays right.
  for (let i = 0; i < 3000; i++) {
    const q = { app: { urls: { api: API } }, path: '/user/repos', rawQuery: `q=n${i}&page=2`, req: {} } as any;
    const next = linksOf(pageHeaders(q, 100, { page: 2, limit: 10 }).Link).next;
    if (next !== `${API}user/repos?q=n${i}&page=3&limit=10`) t.fail(`query ${i}: ${next}`);
  }
  t.equal(pageHeaders(other('/repos/search'), 100, { page: 2, limit: 10 }).Link, first, 'a forgotten template is made again, the same');
});

t.test('kept by the request URL: checked against the base, the path and the limit they were made for', async (t) => {
  const at = (url: string, api: string, path: string) => ({ app: { urls: { api } }, path, rawQuery: url.slice(url.indexOf('?') + 1), req: { url } }) as any;
  const url = '/api/v1/user/repos?q=y&page=2';
  const other = 'https://other.example/api/v1/';
  t.same(linksOf(pageHeaders(at(url, API, '/user/repos'), 100, { page: 2, limit: 10 }).Link).next, `${API}user/repos?q=y&page=3&limit=10`);
  t.same(linksOf(pageHeaders(at(url, other, '/user/repos'), 100, { page: 2, limit: 10 }).Link).next, `${other}user/repos?q=y&page=3&limit=10`, 'the same URL on a server with another base');
  t.same(linksOf(pageHeaders(at(url, API, '/repos'), 100, { page: 2, limit: 10 }).Link).next, `${API}repos?q=y&page=3&limit=10`, 'the same URL under another mount (another path)');
  t.same(linksOf(pageHeaders(at(url, API, '/user/repos'), 100, { page: 2, limit: 25 }).Link).next, `${API}user/repos?q=y&page=3&limit=25`, 'another default limit');
  t.same(linksOf(pageHeaders(at(url, API, '/user/repos'), 100, { page: 2, limit: 10 }).Link).next, `${API}user/repos?q=y&page=3&limit=10`, 'and back');
  const secret = '/api/v1/user/repos?token=abc&page=2';
  t.notMatch(pageHeaders(at(secret, API, '/user/repos'), 100, { page: 2, limit: 10 }).Link!, /abc/, 'a token never reaches a link');
});
