// Units of the webhooks plugin: Gitea's glob syntax, the allowed-host list, event-name expansion and header names.
import t from 'tap';
import { compileGlob, globMatch, GlobSyntaxError } from '../../plugins/lib/glob.js';
import { expandEvents, headerEvent, HOOK_EVENT_TYPES } from '../../plugins/webhooks/event-types.js';
import { checkTarget, HostMatchList, isExternal, isLoopback, isPrivate, TargetRefused } from '../../plugins/webhooks/hosts.js';
import { branchPasses } from '../../plugins/webhooks/service.js';
import { maskAuthorization } from '../../plugins/webhooks/sender.js';

t.test('glob: gobwas syntax without separators', async (t) => {
  const yes: Array<[string, string]> = [
    ['main', 'main'], ['*', 'feature/x/y'], ['release/*', 'release/1.0/hotfix'], ['**', 'a/b'], ['v?.0', 'v1.0'],
    ['{main,dev}', 'dev'], ['{a,{b,c}}x', 'cx'], ['[a-c]at', 'bat'], ['[!a-c]at', 'rat'], ['\\*', '*'], ['a.b', 'a.b'],
    ['ci/*', 'ci/build'], ['(x)', '(x)'], ['a+', 'a+'],
  ];
  for (const [p, s] of yes) t.ok(globMatch(p, s), `${p} matches ${s}`);
  const no: Array<[string, string]> = [
    ['main', 'mainline'], ['v?.0', 'v10.0'], ['{main,dev}', 'prod'], ['[a-c]at', 'rat'], ['[!a-c]at', 'cat'], ['a.b', 'axb'],
    ['release/*', 'releases/1'], ['(x)', 'x'],
  ];
  for (const [p, s] of no) t.notOk(globMatch(p, s), `${p} does not match ${s}`);
  for (const bad of ['{main', '[abc', 'x\\', '[]', '[z-a]']) t.throws(() => compileGlob(bad), GlobSyntaxError, `${bad} is refused`);
  t.notOk(globMatch('{main', 'main'), 'a broken pattern matches nothing');
  t.throws(() => compileGlob('a'.repeat(2000)), GlobSyntaxError);
});

t.test('branch filters as Gitea applies them', async (t) => {
  t.ok(branchPasses('', 'anything'));
  t.ok(branchPasses('*', 'anything'));
  t.ok(branchPasses('main', undefined), 'no branch (a tag, an issue): never filtered');
  t.ok(branchPasses('{main,release/*}', 'release/2'));
  t.notOk(branchPasses('{main,release/*}', 'feature'));
});

t.test('address classes', async (t) => {
  for (const a of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1']) t.ok(isLoopback(a), `${a} loopback`);
  for (const a of ['10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', 'fd00::1', '::ffff:10.1.1.1']) t.ok(isPrivate(a), `${a} private`);
  for (const a of ['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888', '172.32.0.1']) t.ok(isExternal(a), `${a} external`);
  for (const a of ['127.0.0.1', '10.0.0.1', '169.254.169.254', '0.0.0.0', '100.64.0.1', '224.0.0.1', '255.255.255.255', '::', 'fe80::1',
    '192.0.2.1', '::ffff:169.254.169.254', 'not-an-ip']) t.notOk(isExternal(a), `${a} not external`);
});

t.test('allowed host lists in Gitea vocabulary', async (t) => {
  const external = new HostMatchList('external');
  t.ok(external.allowsAddress('8.8.8.8'));
  t.notOk(external.allowsAddress('127.0.0.1'));
  const mixed = new HostMatchList(' loopback , 10.0.0.0/8, *.ci.example.com ');
  t.ok(mixed.allowsAddress('127.0.0.1'));
  t.ok(mixed.allowsAddress('10.2.3.4'));
  t.notOk(mixed.allowsAddress('192.168.0.1'));
  t.ok(mixed.matchesName('hooks.ci.example.com', 443));
  t.notOk(mixed.matchesName('ci.example.com.evil.net', 443));
  t.ok(new HostMatchList('*').allowsAddress('192.168.0.1'));
  t.ok(new HostMatchList('private').allowsAddress('fd12::1'));
  t.ok(new HostMatchList('::1/128').allowsAddress('::1'));
  t.throws(() => new HostMatchList('10.0.0.0/99'));
  t.throws(() => new HostMatchList('{bad'));
});

t.test('checkTarget: resolution, pinning and refusals', async (t) => {
  const lookup = async (name: string) => (name === 'internal.example' ? ['10.0.0.5'] : name === 'mixed.example' ? ['10.0.0.5', '93.184.216.34'] : []);
  const external = new HostMatchList('external');
  await t.rejects(checkTarget('http://internal.example/x', external, lookup), TargetRefused);
  const mixed = await checkTarget('https://mixed.example/x', external, lookup);
  t.equal(mixed!.address, '93.184.216.34', 'the allowed address is the one connected to');
  t.equal(mixed!.port, 443);
  await t.rejects(checkTarget('http://nowhere.example/x', external, lookup), /cannot be resolved/);
  t.equal(await checkTarget('http://nowhere.example/x', external, lookup, true), null, 'lenient at creation');
  const named = await checkTarget('http://internal.example:8080/x', new HostMatchList('internal.example'), lookup);
  t.equal(named!.address, '10.0.0.5', 'a host named by the operator is allowed whatever it resolves to');
  await t.rejects(checkTarget('http://[::1]:80/', external, lookup), TargetRefused);
  await t.rejects(checkTarget('file:///etc/passwd', external, lookup), /http or https/);
  await t.rejects(checkTarget('http://u:p@8.8.8.8/', external, lookup), /credentials/);
  await t.rejects(checkTarget('not a url', external, lookup), /valid URL/);
});

t.test('event names: Gitea expansions, header names', async (t) => {
  t.same(expandEvents([]), ['push']);
  t.same(expandEvents(['issues_only', 'PULL_REQUEST_ONLY', 'nonsense']), ['issues', 'pull_request']);
  t.same(expandEvents(['*']), [...HOOK_EVENT_TYPES]);
  t.same(expandEvents(['status', 'create']), ['create', 'status'], 'listed in Gitea order');
  t.equal(headerEvent('issue_label'), 'issues');
  t.equal(headerEvent('pull_request_sync'), 'pull_request');
  t.equal(headerEvent('pull_request_comment'), 'issue_comment');
  t.equal(headerEvent('pull_request_review_comment'), 'pull_request_comment');
  t.equal(headerEvent('pull_request_review_approved'), 'pull_request_approved');
  t.equal(headerEvent('status'), 'status');
  t.equal(maskAuthorization('Bearer abc'), 'Bearer ********');
  t.equal(maskAuthorization('abc'), '********');
  t.equal(maskAuthorization(''), '');
});
