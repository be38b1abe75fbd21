// Test helper: a real HTTP webhook receiver on 127.0.0.1 that records every request and answers as told.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export class Receiver {
  readonly received: Received[] = [];
  /**
   * The answer to a request (default 200): a status, a full answer, or null to hold the request open without
   * answering (until `release()` or close).
   */
  respond: (r: Received) => number | Answer | null = () => 200;
  private server: http.Server | undefined;
  private readonly held: http.ServerResponse[] = [];
  private waiters: Array<{ test: () => boolean; resolve: () => void }> = [];
  url = '';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const r: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.received.push(r);
        const answer = this.respond(r);
        if (answer === null) this.held.push(res);
        else if (typeof answer === 'number') res.writeHead(answer, { 'Content-Type': 'text/plain', 'X-Receiver': 'yes' }).end(`answer ${answer}`);
        else res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
        this.check();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  private check(): void {
    this.waiters = this.waiters.filter((w) => {
      if (!w.test()) return true;
      w.resolve();
      return false;
    });
  }

  /** Resolves once `test` holds over what was received (checked at every request). */
  until(test: (all: Received[]) => boolean): Promise<Received[]> {
    return new Promise((resolve) => {
      const w = { test: () => test(this.received), resolve: () => resolve(this.received) };
      if (w.test()) w.resolve();
      else this.waiters.push(w);
    });
  }

  /** Resolves once at least `n` requests arrived. */
  count(n: number): Promise<Received[]> {
    return this.until((all) => all.length >= n);
  }

  /** Answers every held request with 200. */
  release(): void {
    for (const res of this.held.splice(0)) res.writeHead(200).end('released');
  }

  async close(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
