// The delivery worker against a real receiver: bounded concurrency, one delivery per hook at a time, timeouts retried,
// redirects not followed, response bodies cut to the bound, the queue depth the service reports.
import t from 'tap';
import { definePlugin, type PluginContext } from '../../core/plugin.js';
import type { WebhooksService } from '../../schemas/contracts/webhooks.js';
import { startForge } from '../helpers/forge.js';
import { Receiver, type Answer } from '../helpers/receiver.js';

let probe: PluginContext | undefined;
const probePlugin = definePlugin({ name: 'webhook-probe', dependencies: ['users', 'repos'], start(ctx) { probe = ctx; } });

t.test('delivery worker', async (t) => {
  const rx = await new Receiver().start();
  const f = await startForge({
    extraPlugins: [probePlugin],
    config: { plugins: { webhooks: { allowedHostList: 'loopback', concurrency: 2, deliverTimeoutMs: 300, maxResponseBytes: 1024, maxAttempts: 2, retryBaseMs: 1, retryMaxMs: 2 } } } as any,
  });
  t.teardown(async () => {
    await f.close();
    await rx.close();
  });
  const user = await f.createUser();
  const created = await f.request('POST', '/user/repos', { token: user.token, json: { name: 'w' } });
  const base = `/repos/${created.json.full_name}/hooks`;
  const repo = (await f.forge.service<any>('repos').byId(created.json.id))!;
  const owner = (await f.forge.service<any>('users').byId(user.id))!;
  const service = f.forge.service<WebhooksService>('webhooks');
  const hook = async (path: string) =>
    (await f.request('POST', base, { token: user.token, json: { type: 'gitea', active: true, events: ['push'], config: { url: `${rx.url}${path}`, content_type: 'json' } } })).json.id as number;
  const push = (n: number) => probe!.events.emit('git.push', { repo, owner, pusherId: user.id, via: 'http', ref: `refs/heads/b${n}`, before: 'a'.repeat(40), after: 'b'.repeat(40), commits: [], totalCommits: 0 });

  t.test('at most `concurrency` hooks at once, one delivery per hook at a time', async (t) => {
    const ids = [await hook('/c1'), await hook('/c2'), await hook('/c3')];
    rx.respond = () => null; // hold every request
    await push(1);
    await push(2);
    await rx.count(2);
    t.same(service.stats(), { pending: 6, inFlight: 2, delivered: service.stats().delivered, failed: service.stats().failed }, '6 recorded, 2 in flight');
    t.equal(rx.received.length, 2, 'a third hook waits for a free slot');
    rx.respond = () => 200;
    rx.release();
    await service.idle();
    t.equal(service.stats().pending, 0);
    const byHook = new Map<string, string[]>();
    for (const r of rx.received) byHook.set(r.url, [...(byHook.get(r.url) ?? []), JSON.parse(r.body).ref]);
    for (const path of ['/c1', '/c2', '/c3']) t.same(byHook.get(path), ['refs/heads/b1', 'refs/heads/b2'], `${path} in order`);
    for (const id of ids) await f.request('DELETE', `${base}/${id}`, { token: user.token });
    rx.received.length = 0;
  });

  t.test('a receiver that does not answer in time: retried, then failed with the reason', async (t) => {
    const id = await hook('/slow');
    rx.respond = () => null;
    await push(3);
    await rx.count(2); // the first attempt timed out and the retry arrived
    await service.idle();
    rx.respond = () => 200;
    const [d] = (await f.request('GET', `${base}/${id}/deliveries`, { token: user.token })).json;
    t.match(d, { state: 'failed', attempts: 2, error: /no answer within 300 ms/, response: { status: 0 } });
    rx.release();
    await f.request('DELETE', `${base}/${id}`, { token: user.token });
    rx.received.length = 0;
  });

  t.test('redirects are not followed; response bodies are cut to the bound', async (t) => {
    const redirect = await hook('/redirect');
    const big = await hook('/big');
    rx.respond = (r): Answer => r.url === '/redirect'
      ? { status: 302, headers: { Location: `${rx.url}/elsewhere` } }
      : { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'x'.repeat(100_000) };
    await push(4);
    await service.idle();
    t.notOk(rx.received.some((r) => r.url === '/elsewhere'), 'the Location was never requested');
    const [r] = (await f.request('GET', `${base}/${redirect}/deliveries`, { token: user.token })).json;
    t.match(r, { state: 'failed', attempts: 1, error: 'redirect (302) not followed', response: { status: 302 } });
    t.equal(r.response.headers.location, `${rx.url}/elsewhere`);
    const [b] = (await f.request('GET', `${base}/${big}/deliveries`, { token: user.token })).json;
    t.equal(b.state, 'delivered');
    t.ok(b.response.body.length <= 1025, `body kept to the bound (${b.response.body.length})`);
    t.ok(b.response.body.startsWith('xxxx'));
    rx.respond = () => 200;
  });
});
