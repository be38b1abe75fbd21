// The one log line per request, written straight to the kernel's own log destination in pino's line format.
import type { Logger } from 'pino';

export type RequestLogLine = (reqId: string, method: string, path: string, status: number, ms: number) => void;

interface LineDestination {
  write(line: string): unknown;
}

/** pino's number for `info`: the request line's level. */
const INFO = 30;

/**
 * Builds the request logger. With the kernel's own pino destination the line is formatted here and handed to the
 * destination directly: the same JSON pino would write for `log.info({reqId, method, path, status, ms}, 'request')`
 * with `base: {name}`, without pino's generic serialisation (a measurable share of a small request's cost). With an
 * embedder's logger the line goes through that logger, whatever it does with it.
 */
export function createRequestLog(log: Logger, destination: LineDestination | null, name: string): RequestLogLine {
  if (!destination) {
    return (reqId, method, path, status, ms) => log.info({ reqId, method, path, status, ms }, 'request');
  }
  const head = `{"level":${INFO},"time":`;
  const nameField = `,"name":${JSON.stringify(name)},"reqId":"`;
  // Date.now() is past the small-integer range: turning it into text each time is a double-to-string conversion.
  // Many requests share a millisecond under load, so the text is made once per millisecond.
  let lastTime = -1;
  let lastTimeText = '';
  return (reqId, method, path, status, ms) => {
    // The level may be changed at run time (log.level = 'warn'): checked per line, as pino does.
    if (!log.isLevelEnabled('info')) return;
    const time = Date.now();
    if (time !== lastTime) {
      lastTime = time;
      lastTimeText = String(time);
    }
    destination.write(
      `${head}${lastTimeText}${nameField}${reqId}","method":${METHOD_JSON[method] ?? JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status},"ms":${formatHundredths(ms)},"msg":"request"}\n`,
    );
  };
}

const METHOD_JSON: Readonly<Record<string, string>> = Object.fromEntries(
  ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].map((m) => [m, JSON.stringify(m)]),
);

/**
 * A duration already rounded to hundredths, as JSON writes the number (`12`, `0.5`, `3.07`), built from small
 * integers: a fractional number's own conversion to text is a double-to-string conversion.
 */
export function formatHundredths(ms: number): string {
  const hundredths = Math.round(ms * 100);
  if (!(hundredths >= 0 && hundredths <= 0x3fffffff) || Math.abs(hundredths / 100 - ms) > 1e-9) return String(ms);
  const whole = (hundredths / 100) | 0;
  const fraction = hundredths - whole * 100;
  if (fraction === 0) return String(whole);
  if (fraction % 10 === 0) return `${whole}.${fraction / 10}`;
  return fraction < 10 ? `${whole}.0${fraction}` : `${whole}.${fraction}`;
}
