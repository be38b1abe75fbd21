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
  return (reqId, method, path, status, ms) => {
    // The level may be changed at run time (log.level = 'warn'): checked per line, as pino does.
    if (!log.isLevelEnabled('info')) return;
    destination.write(
      `${head}${Date.now()}${nameField}${reqId}","method":${JSON.stringify(method)},"path":${JSON.stringify(path)},"status":${status},"ms":${ms},"msg":"request"}\n`,
    );
  };
}
