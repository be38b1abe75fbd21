// The server process's old-generation headroom (core/heap-headroom.ts): V8 computes its next full-collection limit
// with the set factor (its own trace prints the factor it used), 0 gives V8's own choice back, nonsense is refused.
import t from 'tap';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { pathToFileURL } from 'node:url';
import { PACKAGE_ROOT } from '../../core/config.js';
import { applyHeapHeadroom, bootHeadroomPercent, missingServeFlags, SERVE_NODE_FLAGS } from '../../core/heap-headroom.js';
import { nodeCommand } from '../helpers/child-env.js';

const run = promisify(execFile);
const MODULE = pathToFileURL(path.join(PACKAGE_ROOT, 'dist', 'core', 'heap-headroom.js')).href;

/** The factors V8 used for its old-generation limits after a full collection in a child that set `percent`. */
async function limitFactors(percent: number): Promise<number[]> {
  const script = `import { applyHeapHeadroom } from ${JSON.stringify(MODULE)};
applyHeapHeadroom(${percent});
const keep = [];
for (let i = 0; i < 200000; i++) keep.push({ i });
globalThis.gc();
console.log('kept', keep.length);`;
  const [cmd, args] = nodeCommand(['--expose-gc', '--trace-gc-verbose', '--input-type=module', '-e', script]);
  const { stdout } = await run(cmd, args, { maxBuffer: 64 * 1024 * 1024 });
  t.match(stdout, /kept 200000/);
  return [...stdout.matchAll(/\[HeapController\] Limit: old size: \d+ KB, new limit: \d+ KB \(([\d.]+)\)/g)].map((m) => Number(m[1]));
}

t.test('the limit after a full collection uses the headroom set', async (t) => {
  const set = await limitFactors(40);
  t.ok(set.length > 0, 'V8 computed a limit');
  t.ok(set.every((f) => f === 1.4), `every factor is 1.4 (${set.join(', ')})`);
  const own = await limitFactors(0);
  t.ok(own.length > 0 && own.every((f) => f !== 1.4), `0: V8's own factors (${own.join(', ')})`);
});

t.test('only whole percents from 0 to 400', async (t) => {
  for (const bad of [-1, 401, 2.5, Number.NaN]) t.throws(() => applyHeapHeadroom(bad), RangeError, String(bad));
});

t.test("a start gets at least 100%, or V8's own choice where the operator asked for it", async (t) => {
  t.equal(bootHeadroomPercent(25), 100);
  t.equal(bootHeadroomPercent(150), 150, "a larger headroom than the start's is kept");
  t.equal(bootHeadroomPercent(0), 0);
});

t.test('pretenuring is switched by a V8 flag V8 accepts at run time, both ways', async (t) => {
  // Whether V8 pretenures a site depends on timing (its own trace is not deterministic), so what is tested here is
  // that the switch reaches V8 without error in a running process; its effect is measured in bench/RESULTS.md.
  const script = `import { applyPretenuring } from ${JSON.stringify(MODULE)};
applyPretenuring(false);
const keep = [];
for (let i = 0; i < 300000; i++) keep.push({ i, a: [i] });
applyPretenuring(true);
for (let i = 0; i < 300000; i++) keep.push({ i, a: [i] });
console.log('kept', keep.length);`;
  const [cmd, args] = nodeCommand(['--input-type=module', '-e', script]);
  const { stdout, stderr } = await run(cmd, args);
  t.match(stdout, /kept 600000/);
  t.notMatch(stderr, /unrecognized|Error/i, 'V8 knows the flag');
});

t.test("npm start's node flags: missing unless the command line or NODE_OPTIONS names them (any value)", async (t) => {
  t.same(SERVE_NODE_FLAGS, ['--max-semi-space-size=32']);
  t.same(missingServeFlags([], ''), ['--max-semi-space-size=32'], 'nothing given');
  t.same(missingServeFlags(['--max-semi-space-size=32'], ''), []);
  t.same(missingServeFlags(['--max-semi-space-size=64'], ''), [], "an operator's own size counts");
  t.same(missingServeFlags([], '--max_semi_space_size=8 --enable-source-maps'), [], 'NODE_OPTIONS, with V8\'s underscores');
  t.same(missingServeFlags(['--max-old-space-size=2048'], '--max-semi-space'), ['--max-semi-space-size=32'], 'other flags, or a name that only starts alike, do not');
});
