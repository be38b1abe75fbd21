// Typed access to the part of @seald-io/nedb 4 the embedded adapter still builds on: its file handling (the
// restore of a rewrite interrupted by a crash, the data directory's creation; `rewrite.ts` writes by its protocol). The file format is nedb's too; indexes,
// queries and the write path are the adapter's own (see README.md beside this file). `assertNedbInternals` fails
// at open if an upgrade moved what is used here.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

interface NedbStorage {
  ensureDatafileIntegrityAsync(filename: string, mode?: number): Promise<void>;
  ensureParentDirectoryExistsAsync(filename: string, mode?: number): Promise<void>;
}

export const storage = require('@seald-io/nedb/lib/storage.js') as NedbStorage;

/** Checks that the nedb internals used here still have the expected shape. */
export function assertNedbInternals(): void {
  const ok =
    typeof storage.ensureDatafileIntegrityAsync === 'function' &&
    typeof storage.ensureParentDirectoryExistsAsync === 'function';
  if (!ok) throw new Error('@seald-io/nedb internals changed: the embedded store supports nedb 4.x');
}
