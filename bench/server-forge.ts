// Child process: boots forgekit on the seeded data dir (or MongoDB) and reports its boot time and memory over IPC.
// Run by bench/run.ts only; request logging stays at the configured level (`info`: one line per request).
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../core/config.js';
import { applyHeapHeadroom, applyPretenuring, bootHeadroomPercent } from '../core/heap-headroom.js';
import { createForge } from '../plugins/index.js';

interface ForgeChildConfig {
  dataDir: string;
  port: number;
  logLevel: 'info' | 'silent' | 'warn' | 'error' | 'debug';
}

function send(message: unknown): void {
  process.send?.(message);
}

/** Writes what a stopped profiler returned (`stopped`) to `file`, then disconnects and says `written`. */
function writeProfile(session: Session, stopped: Promise<{ profile: unknown }>, file: string, written: string): void {
  stopped
    .then(({ profile }) => writeFile(file, JSON.stringify(profile)))
    .then(() => {
      session.disconnect();
      send({ type: written });
    }, (err) => send({ type: 'error', message: String(err) }));
}

async function main(): Promise<void> {
  const cfg = JSON.parse(process.env.FORGEKIT_BENCH_SERVER ?? '{}') as ForgeChildConfig;
  // As `forgekit serve` does: pretenuring as configured (off), the start's own headroom, then the server's once it listens.
  const config = loadConfig({ env: process.env });
  applyPretenuring(config.heapPretenuring);
  applyHeapHeadroom(bootHeadroomPercent(config.heapHeadroomPercent));
  const t0 = performance.now();
  const forge = await createForge({
    env: process.env,
    config: {
      dataDir: cfg.dataDir, port: cfg.port, host: '127.0.0.1', logLevel: cfg.logLevel,
      // The clone case sends 10–50 concurrent transfers to ONE repository: with the default per-repository cap (8)
      // the rest would be refused (429) by design. The bench measures transfer throughput, so the caps go up here.
      plugins: { git: { maxTransfers: 1024, maxTransfersPerRepo: 1024 } },
    },
  });
  const created = performance.now();
  const { url } = await forge.listen(cfg.port, '127.0.0.1');
  // As `forgekit serve` does (FORGEKIT_HEAP_HEADROOM_PERCENT reaches the config through the environment).
  applyHeapHeadroom(forge.config.heapHeadroomPercent);
  const ready = performance.now();
  const mem = process.memoryUsage();
  send({
    type: 'ready',
    url,
    store: forge.store.kind,
    createForgeMs: Math.round(created - t0),
    listenMs: Math.round(ready - created),
    // performance.now() counts from process start: node start-up and module loading included.
    sinceProcessStartMs: Math.round(ready),
    rss: mem.rss,
    heapUsed: mem.heapUsed,
    // The node flags it runs with (run.js checks that `--node-flag` reached it).
    execArgv: process.execArgv,
  });
  // Work the plugins left running after the boot (the issues' q index): measuring before it ends would count its
  // CPU against the first case's requests. The parent waits for this before it measures.
  void forge.settled().then((work) => send({ type: 'settled', sinceReadyMs: Math.round(performance.now() - ready), work }));
  let profiler: Session | undefined;
  process.on('message', (msg: { type?: string }) => {
    if (msg?.type === 'memory') {
      const m = process.memoryUsage();
      send({ type: 'memory', rss: m.rss, heapUsed: m.heapUsed, maxRss: process.resourceUsage().maxRSS * 1024 });
    } else if (msg?.type === 'profile-start') {
      // A CPU profile of a measured window only (bench/profile.ts), through the inspector: no boot in it.
      profiler ??= new Session();
      const session = profiler;
      session.connect();
      session.post('Profiler.enable')
        .then(() => session.post('Profiler.start'))
        .then(() => send({ type: 'profile-started' }), (err) => send({ type: 'error', message: String(err) }));
    } else if (msg?.type === 'profile-stop' && profiler) {
      writeProfile(profiler, profiler.post('Profiler.stop'), (msg as { file: string }).file, 'profile-written');
    } else if (msg?.type === 'alloc-start') {
      // Allocation sampling (profile.js --alloc): about one sample per KiB allocated (V8 scales them to an estimate
      // of every byte), the collected objects kept in, so the profile says what a request allocates, not what survives.
      profiler ??= new Session();
      const session = profiler;
      session.connect();
      session.post('HeapProfiler.enable')
        .then(() => session.post('HeapProfiler.startSampling', {
          samplingInterval: (msg as { interval?: number }).interval ?? 1024,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        }))
        .then(() => send({ type: 'alloc-started' }), (err) => send({ type: 'error', message: String(err) }));
    } else if (msg?.type === 'alloc-stop' && profiler) {
      writeProfile(profiler, profiler.post('HeapProfiler.stopSampling'), (msg as { file: string }).file, 'alloc-written');
    } else if (msg?.type === 'stop') {
      forge.close().then(() => process.exit(0), () => process.exit(1));
    }
  });
  process.on('disconnect', () => {
    forge.close().finally(() => process.exit(0));
  });
}

main().catch((err) => {
  send({ type: 'error', message: err instanceof Error ? err.stack ?? err.message : String(err) });
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 100);
});
