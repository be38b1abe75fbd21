import t from 'tap';
import { pino } from 'pino';
import { createRequestLog } from '../../core/http/request-log.js';
import { clockPast } from '../helpers/wait.js';

/** A destination that keeps what it is given. */
function sink(): { lines: string[]; write(line: string): void } {
  const lines: string[] = [];
  return { lines, write: (line: string) => void lines.push(line) };
}

t.test('the fast line is the line pino writes for the same fields', async (t) => {
  const viaPino = sink();
  const direct = sink();
  const log = pino({ level: 'info', base: { name: 'forgekit' } }, viaPino);
  log.info({ reqId: 'abc-1', method: 'GET', path: '/api/v1/repos/a"b\\c/ü', status: 200, ms: 0.42 }, 'request');
  const logRequest = createRequestLog(log, direct, 'forgekit');
  logRequest('abc-1', 'GET', '/api/v1/repos/a"b\\c/ü', 200, 0.42);
  t.equal(direct.lines.length, 1, 'one line');
  t.ok(direct.lines[0]!.endsWith('}\n'), 'newline-terminated');
  const a = JSON.parse(viaPino.lines[0]!);
  const b = JSON.parse(direct.lines[0]!);
  t.type(b.time, 'number', 'epoch milliseconds, like pino');
  t.ok(Math.abs(a.time - b.time) < 1000, 'a current time');
  delete a.time;
  delete b.time;
  t.same(b, a, 'same fields and values');
  t.same(Object.keys(JSON.parse(direct.lines[0]!)), Object.keys(JSON.parse(viaPino.lines[0]!)), 'same key order');
});

t.test('the level is honoured, also when changed at run time', async (t) => {
  const direct = sink();
  const log = pino({ level: 'warn' }, sink());
  const logRequest = createRequestLog(log, direct, 'forgekit');
  logRequest('x-1', 'GET', '/', 200, 1);
  t.equal(direct.lines.length, 0, 'nothing at warn');
  log.level = 'info';
  logRequest('x-2', 'GET', '/', 200, 1);
  t.equal(direct.lines.length, 1, 'written once info is enabled');
});

t.test("an embedder's logger gets the line through its own API", async (t) => {
  const out = sink();
  const log = pino({ level: 'info' }, out);
  createRequestLog(log, null, 'forgekit')('y-1', 'POST', '/api/v1/markdown', 201, 3.5);
  const line = JSON.parse(out.lines[0]!);
  t.match(line, { reqId: 'y-1', method: 'POST', path: '/api/v1/markdown', status: 201, ms: 3.5, msg: 'request' });
});

t.test('durations are written as JSON writes the number', async (t) => {
  const { formatHundredths } = await import('../../core/http/request-log.js');
  let mismatches = 0;
  for (let h = 0; h <= 2_000_000; h++) {
    const ms = Math.round(h) / 100;
    if (formatHundredths(ms) !== JSON.stringify(ms)) mismatches++;
  }
  t.equal(mismatches, 0, 'every hundredth from 0 to 20,000 ms');
  for (const ms of [0.001, 1e-7, 123456789.25, 2 ** 40, -1, 0.125, 1 / 3, NaN]) {
    t.equal(formatHundredths(ms), JSON.stringify(ms) === 'null' ? 'NaN' : JSON.stringify(ms), `and ${ms} (not a rounded duration)`);
  }
});

t.test('the time is the current millisecond on every line', async (t) => {
  const direct = sink();
  const logRequest = createRequestLog(pino({ level: 'info' }, sink()), direct, 'forgekit');
  const before = Date.now();
  logRequest('t-1', 'GET', '/', 200, 1);
  await clockPast(JSON.parse(direct.lines[0]!).time); // the next line is written in a later millisecond
  logRequest('t-2', 'DELETE', '/', 204, 1);
  logRequest('t-3', 'PROPFIND', '/', 405, 1);
  const lines = direct.lines.map((line) => JSON.parse(line));
  t.ok(lines[0].time >= before && lines[0].time < lines[1].time, 'a later line carries a later time');
  t.same(lines.map((l) => l.method), ['GET', 'DELETE', 'PROPFIND'], 'every method written, the unusual one too');
});
