// The crash-safe replacement of a collection file, written block by block. Same protocol as nedb's
// `crashSafeWriteFileLinesAsync` (the new version goes to `<file>~`, is fsynced and renamed over the file, then the
// directory is fsynced; nedb's `ensureDatafileIntegrityAsync` restores a `<file>~` left without its file at load),
// without nedb's need for every line of the file in memory at once.
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

/** fsync of a file or directory; file systems that cannot fsync a directory are let be, as nedb does. */
async function syncPath(target: string, isDir: boolean): Promise<void> {
  let fh: FileHandle;
  try {
    fh = await open(target, isDir ? 'r' : 'r+');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !isDir) return; // a first rewrite: no previous version to make durable
    if (isDir && code === 'EISDIR') return;
    throw err;
  }
  try {
    await fh.sync();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!isDir || (code !== 'EPERM' && code !== 'EISDIR' && code !== 'EINVAL')) throw err;
  } finally {
    await fh.close();
  }
}

export class FileRewrite {
  private fh: FileHandle | null;

  private constructor(
    private readonly file: string,
    private readonly temp: string,
    fh: FileHandle,
  ) {
    this.fh = fh;
  }

  /** Opens `<file>~` for the new version once the directory and the current version are durable. */
  static async begin(file: string, fileMode: number): Promise<FileRewrite> {
    await syncPath(path.dirname(file), true);
    await syncPath(file, false);
    const temp = `${file}~`;
    return new FileRewrite(file, temp, await open(temp, 'w', fileMode));
  }

  /** Appends text to the new version (all of it: `writeFile` on a handle loops over short writes). */
  async write(text: string): Promise<void> {
    await this.handle().writeFile(text, 'utf8');
  }

  /** Makes what was written so far durable (also before `commit`, so the commit's own fsync has little to do). */
  async sync(): Promise<void> {
    await this.handle().sync();
  }

  /** fsync and rename over the file; `syncDirectory` then makes the rename itself durable. */
  async commit(): Promise<void> {
    const fh = this.handle();
    await fh.sync();
    this.fh = null;
    await fh.close();
    await rename(this.temp, this.file);
  }

  async syncDirectory(): Promise<void> {
    await syncPath(path.dirname(this.file), true);
  }

  /** Drops the unfinished new version; the file stays as it was. */
  async abort(): Promise<void> {
    const fh = this.fh;
    this.fh = null;
    await fh?.close().catch(() => undefined);
    await rm(this.temp, { force: true });
  }

  private handle(): FileHandle {
    if (!this.fh) throw new Error(`the rewrite of ${this.file} is finished`);
    return this.fh;
  }
}
