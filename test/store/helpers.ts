// Helpers for the store tests: temp data dirs, embedded stores and a logger that records warnings.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EmbeddedStore } from '../../core/store/embedded/index.js';
import type { StoreLogger } from '../../core/store/index.js';

export interface RecordingLogger extends StoreLogger {
  records: Array<{ level: string; obj: unknown; msg: string }>;
}

export function recordingLogger(): RecordingLogger {
  const records: RecordingLogger['records'] = [];
  const at = (level: string) => (obj: unknown, msg?: string) => {
    records.push({ level, obj, msg: msg ?? '' });
  };
  return { records, info: at('info'), warn: at('warn'), error: at('error') } as unknown as RecordingLogger;
}

export async function tempDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), 'forgekit-store-'));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

export async function openEmbedded(dataDir: string, log: StoreLogger = recordingLogger(), compactIntervalMs = 0): Promise<EmbeddedStore> {
  const store = new EmbeddedStore({ dataDir, compactIntervalMs, log });
  await store.open();
  return store;
}
