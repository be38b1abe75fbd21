// The mixed workload's writes never act as, or on, the dataset's role accounts: other cases check those accounts'
// exact counts (the starrer's subscriptions, the owner's issues), and a run's case order must not change them (a
// repository the stream created as the starrer once made user-subscriptions answer 201 where 200 was seeded).
import t from 'tap';
import { drawStream } from '../../bench/cases/mixed.js';
import { ROLE_LOGINS, tokenOf } from '../../bench/dataset.js';

t.test('mixed stream writes stay off the role accounts', async (t) => {
  const roles = Object.values(ROLE_LOGINS);
  const others = Array.from({ length: 20 }, (_, i) => `user${i}`);
  // Few users, most of them roles: a stream that ignored the rule would hit them often.
  const logins = [...roles, ...others];
  const users = logins.map((login, i) => ({ id: i + 1, login }));
  const repos = users.flatMap((u) => [0, 1, 2].map((k) => ({ owner: u.login, name: `r${k}`, private: k === 2, ownerId: u.id })));
  const roleTokens = new Set(roles.map((login) => tokenOf(login)));
  const items = drawStream({ users, repos }, 12345, 20_000);
  const writes = items.filter((item) => item.method !== 'GET');
  t.ok(writes.length > 500, `writes drawn: ${writes.length}`);
  for (const kind of ['PUT /user/starred/{owner}/{repo}', 'DELETE /user/starred/{owner}/{repo}', 'PUT /user/following/{username}',
    'DELETE /user/following/{username}', 'POST /repos/{owner}/{repo}/issues', 'POST /user/repos']) {
    t.ok(writes.some((w) => w.kind === kind), `${kind} is in the stream`);
  }
  const byRole = writes.filter((w) => roleTokens.has(w.token ?? ''));
  t.same(byRole.map((w) => `${w.method} ${w.path}`), [], 'no write is made as a role account');
  const onRole = writes.filter((w) => roles.some((login) => w.path.includes(`/${login}/`) || w.path.endsWith(`/${login}`)));
  t.same(onRole.map((w) => `${w.method} ${w.path}`), [], 'no write targets a role account or its repositories');
  t.ok(items.some((item) => item.method === 'GET' && roleTokens.has(item.token ?? '')), 'reads as role accounts still happen');
});
