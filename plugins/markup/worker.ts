// Worker-thread entry: renders off the server's event loop, so a slow document never stalls other requests and
// can be abandoned at the time limit (pool.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { createMarkupRenderer } from './render.js';
import type { RenderOptions } from './render.js';

interface Job {
  id: number;
  text: string;
  options: RenderOptions;
}

const port = parentPort;
if (port) {
  const renderer = createMarkupRenderer({ rootUrl: (workerData as { rootUrl: string }).rootUrl });
  // The pool starts a document's clock only once the worker is ready: start-up is not the document's time.
  port.postMessage({ ready: true });
  port.on('message', (job: Job) => {
    try {
      port.postMessage({ id: job.id, html: renderer.render(job.text, job.options) });
    } catch (err) {
      port.postMessage({ id: job.id, error: err instanceof Error ? err.message : String(err) });
    }
  });
}
