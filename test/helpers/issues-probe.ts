// A test plugin that hands a test the issues service, for what only the service shows (its `q` index, its plans,
// the pages it pivoted): `held.issues` is set when the forge starts. And the accounts and repositories `q` tests share.
import { definePlugin } from '../../core/plugin.js';
import { jsonCaller, type TestForge } from './forge.js';

export function issuesProbe<T = any>(name = 'issues-probe') {
  const held: { issues?: T } = {};
  const plugin = definePlugin({ name, dependencies: ['issues'], start(ctx) { held.issues = ctx.services.get('issues') as T; } });
  return { held, plugin };
}

/**
 * The `q` tests' accounts: alice with a public repository `pub` and a private one `priv`, bob a stranger to both;
 * `req` is a setup-request caller (jsonCaller).
 */
export async function aliceWithPubAndPriv(f: TestForge) {
  const alice = await f.createUser({ username: 'alice' });
  const bob = await f.createUser({ username: 'bob' });
  const req = jsonCaller(f);
  await req('POST', '/user/repos', alice.token, { name: 'pub' }, 201);
  await req('POST', '/user/repos', alice.token, { name: 'priv', private: true }, 201);
  return { alice, bob, req };
}
