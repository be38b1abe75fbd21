// Human-readable log lines for a person at a terminal: `12:04:05 INFO  forgekit listening port=3000 …`, coloured when
// the output is a terminal. The logger still produces pino's JSON; this destination reformats each line.
import { pino, type Logger } from 'pino';
import type { ForgeConfig } from '../../core/config.js';

const LEVELS: Record<number, [string, string]> = {
  10: ['TRACE', '\x1b[90m'], 20: ['DEBUG', '\x1b[36m'], 30: ['INFO ', '\x1b[32m'], 40: ['WARN ', '\x1b[33m'], 50: ['ERROR', '\x1b[31m'], 60: ['FATAL', '\x1b[35m'],
};
const OMIT = new Set(['level', 'time', 'msg', 'name', 'pid', 'hostname']);

function value(v: unknown): string {
  if (typeof v === 'string') return /[\s="]/.test(v) || v === '' ? JSON.stringify(v) : v;
  if (v && typeof v === 'object' && 'message' in v && 'stack' in v) return `\n${String((v as { stack: unknown }).stack)}`;
  return JSON.stringify(v);
}

/** One JSON log line → one readable line. A line that is not JSON passes unchanged. */
export function formatLine(line: string, color: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const time = new Date(typeof entry.time === 'number' ? entry.time : Date.now()).toISOString().slice(11, 19);
  const [label, tint] = LEVELS[entry.level as number] ?? ['LOG  ', ''];
  let text: string;
  if (entry.msg === 'request' && typeof entry.method === 'string') {
    text = `${entry.method} ${String(entry.path)} ${String(entry.status)} ${String(entry.ms)} ms`;
    if (entry.reqId) text += ` reqId=${String(entry.reqId)}`;
  } else {
    const fields = Object.entries(entry).filter(([k]) => !OMIT.has(k)).map(([k, v]) => `${k}=${value(v)}`);
    text = [entry.msg ?? '', ...fields].join(' ').trim();
  }
  const level = color ? `${tint}${label}\x1b[0m` : label;
  return `${time} ${level} ${text}\n`;
}

/** Whether the CLI writes readable lines: `pretty`, or `auto` on a terminal. */
export function wantsPretty(config: ForgeConfig, stream: NodeJS.WriteStream = process.stdout): boolean {
  return config.logFormat === 'pretty' || (config.logFormat === 'auto' && stream.isTTY === true);
}

/** A pino logger writing readable lines to `stream` (the kernel's own JSON batching is for machines). */
export function prettyLogger(config: ForgeConfig, stream: NodeJS.WriteStream = process.stdout): Logger {
  const color = stream.isTTY === true && !process.env.NO_COLOR;
  let pending = '';
  const destination = {
    write(chunk: string) {
      pending += chunk;
      let nl: number;
      let out = '';
      while ((nl = pending.indexOf('\n')) !== -1) {
        out += formatLine(pending.slice(0, nl), color);
        pending = pending.slice(nl + 1);
      }
      if (out) stream.write(out);
    },
  };
  return pino({ level: config.logLevel, base: { name: 'forgekit' } }, destination);
}
