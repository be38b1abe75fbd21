// The version check of the Go SDK behind tea, Woodpecker and Drone (code.gitea.io/sdk/gitea): it parses
// `GET /version` with hashicorp/go-version and refuses servers below 1.11. Here the same parse, the same constraint.
import t from 'tap';
import { startForge } from '../helpers/forge.js';
import { packageVersion } from '../../core/config.js';

/** hashicorp/go-version's VersionRegexpRaw (version.go), anchored as NewVersion anchors it. */
const GO_VERSION = new RegExp(
  '^v?([0-9]+(\\.[0-9]+)*?)' +
  '(-([0-9]+[0-9A-Za-z\\-~]*(\\.[0-9A-Za-z\\-~]+)*)|(-?([A-Za-z\\-~]+[0-9A-Za-z\\-~]*(\\.[0-9A-Za-z\\-~]+)*)))?' +
  '(\\+([0-9A-Za-z\\-~]+(\\.[0-9A-Za-z\\-~]+)*))?$',
);

/** go-version's NewVersion + GreaterThanOrEqual for a constraint without pre-release: segments padded to three. */
function atLeast(raw: string, min: number[]): boolean {
  const m = GO_VERSION.exec(raw);
  if (!m) throw new Error(`go-version cannot parse ${JSON.stringify(raw)}`);
  const segments = m[1]!.split('.').map(Number);
  while (segments.length < 3) segments.push(0);
  for (let i = 0; i < 3; i++) {
    if (segments[i]! !== min[i]!) return segments[i]! > min[i]!;
  }
  // Equal cores: a pre-release sorts below the release (go-version), build metadata is ignored.
  return m[3] === undefined;
}

t.test('the Go SDK accepts the reported version (>= 1.11)', async (t) => {
  const f = await startForge();
  t.teardown(() => f.close());
  const res = await f.request('GET', '/version');
  t.equal(res.status, 200);
  const v = res.json.version as string;
  t.equal(v, `1.23.0+forgekit-${packageVersion()}`, "Gitea's version, forgekit's as build metadata");
  t.equal(res.json.Version, v, 'the 2017 key too');
  t.ok(GO_VERSION.test(v), 'go-version parses it');
  t.ok(atLeast(v, [1, 11, 0]), '>= 1.11');
  // The checker itself: the bare package version of before is refused, as the SDK refused it.
  t.notOk(atLeast('0.1.0', [1, 11, 0]), 'the old 0.1.0 is refused');
  t.notOk(atLeast('1.11.0-rc1', [1, 11, 0]), 'a pre-release sorts below');
  t.ok(atLeast('1.11.0+anything', [1, 11, 0]), 'build metadata is ignored');
});

t.test('the Gitea base is a version plugin setting', async (t) => {
  const f = await startForge({ config: { plugins: { version: { giteaVersion: '1.21.11' } } } as any });
  t.teardown(() => f.close());
  const v = (await f.request('GET', '/version')).json.version as string;
  t.equal(v, `1.21.11+forgekit-${packageVersion()}`);
  t.ok(atLeast(v, [1, 11, 0]));
  await t.rejects(startForge({ config: { plugins: { version: { giteaVersion: 'latest' } } } as any }), /plugins\.version\.giteaVersion/,
    'a base that is not a semver core stops the boot');
});
