// Bench cases for the pulls plugin, over one repository prepared through the API in `setup`: 50 open pull requests
// (one branch and commit each, written with the contents API) and one pull request changing 300 files.
//   pulls-list-50      GET /repos/{o}/{r}/pulls?limit=50          (a full page: issue halves, branches, repositories)
//   pulls-files-300    GET /repos/{o}/{r}/pulls/{n}/files?limit=50 (git diff --name-status/--numstat of 300 files)
import type { BenchCase, BenchClient } from '../case.js';
import { header } from '../case.js';

const QUICK = process.argv.includes('--quick');
const PULLS = QUICK ? 20 : 50;
const FILES = 300;

const b64 = (s: string) => Buffer.from(s).toString('base64');
let ready: Promise<{ base: string; filesPull: number }> | null = null;

function prepare(client: BenchClient): Promise<{ base: string; filesPull: number }> {
  ready ??= (async () => {
    const user = await client.createUser({ username: 'bench-pulls' });
    const made = await client.request('POST', '/user/repos', { token: user.token, json: { name: 'prs', auto_init: true, readme: 'Default' } });
    if (made.status !== 201) throw new Error(`creating the bench repository: ${made.status} ${made.text}`);
    const base = `/repos/${user.username}/prs`;
    const must = async (what: string, res: Promise<{ status: number; text: string; json: any }>, status: number) => {
      const r = await res;
      if (r.status !== status) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`);
      return r.json;
    };
    for (let i = 0; i < PULLS; i++) {
      await must('branch', client.request('POST', `${base}/contents/f${i}.txt`, {
        token: user.token, json: { content: b64(`file ${i}\n`), branch: 'master', new_branch: `b${i}`, message: `add f${i}` },
      }), 201);
      await must('pull', client.request('POST', `${base}/pulls`, { token: user.token, json: { head: `b${i}`, base: 'master', title: `Change ${i}` } }), 201);
    }
    const files = Array.from({ length: FILES }, (_, k) => ({ operation: 'create', path: `many/f${k}.txt`, content: b64(`line ${k}\nmore\n`) }));
    await must('files branch', client.request('POST', `${base}/contents`, {
      token: user.token, json: { files, branch: 'master', new_branch: 'many', message: `${FILES} files` },
    }), 201);
    const pull = await must('files pull', client.request('POST', `${base}/pulls`, { token: user.token, json: { head: 'many', base: 'master', title: 'Many files' } }), 201);
    return { base, filesPull: pull.number as number };
  })();
  return ready;
}

export const cases: BenchCase[] = [
  {
    name: 'pulls-list-50',
    group: 'pulls',
    path: '/repos/bench-pulls/prs/pulls?limit=50',
    setup: async (client) => ({ path: `${(await prepare(client)).base}/pulls?limit=50` }),
    plugins: ['pulls'],
    check: (res) => (header(res, 'x-total-count') === String(PULLS + 1) ? null : `X-Total-Count ${header(res, 'x-total-count')}`),
    description: 'GET /repos/{owner}/{repo}/pulls?limit=50: a page of open pull requests with their branches and repositories.',
  },
  {
    name: 'pulls-files-300',
    group: 'pulls',
    path: '/repos/bench-pulls/prs/pulls/1/files?limit=50',
    setup: async (client) => {
      const { base, filesPull } = await prepare(client);
      return { path: `${base}/pulls/${filesPull}/files?limit=50` };
    },
    plugins: ['pulls'],
    check: (res) => (header(res, 'x-total-count') === String(FILES) ? null : `X-Total-Count ${header(res, 'x-total-count')}`),
    description: 'GET /repos/{owner}/{repo}/pulls/{index}/files?limit=50: the first page of a 300-file change (two git diffs per request).',
  },
];

export default cases;
