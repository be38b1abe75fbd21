// Reads a collection file line by line in fixed-size chunks. Reading the file whole made, at a start, a buffer and a
// string as large as the file (100 MB for 200,000 issues) per collection, dead right after the load but freed only at
// a later full collection; a chunk's buffer is reused, and its string is short-lived.
import { isAscii } from 'node:buffer';
import { open } from 'node:fs/promises';

/**
 * Bytes read at a time. A read's text is then an ordinary young object (V8 puts objects of 128 KiB and more in
 * large-object space, each in pages of its own): with 1 MiB reads every string took fresh pages from the OS, and the
 * load of the 100k-repository dataset took ~0.4–0.7 s longer.
 */
const CHUNK_BYTES = 1 << 16;
const NEWLINE = 0x0a;

/**
 * Calls `onLine` with each line of the file (without its `\n`; a last line without one included) and its 1-based
 * number, in order. Each read decodes its bytes up to its last `\n` as one string (a `\n` byte is never part of a
 * multi-byte character, so that text is always whole); the bytes after it wait at the buffer's start for the next
 * read, and a line longer than the buffer grows it.
 *
 * Text that is all ASCII (most files: JSON.stringify leaves other characters as they are, but little text here has
 * any) is decoded as latin1, a copy: node 20's UTF-8 decoder spent ~3.4 ms a MiB on it (~0.7 s of a 100k-repository
 * boot), the check and the copy ~0.3.
 */
export async function forEachLine(file: string, onLine: (line: string, lineNo: number) => void, chunkBytes = CHUNK_BYTES): Promise<void> {
  const handle = await open(file, 'r');
  try {
    let buffer: Buffer = Buffer.allocUnsafe(chunkBytes);
    let held = 0; // bytes of an unfinished line at the buffer's start
    let lineNo = 0;
    for (;;) {
      if (held === buffer.length) buffer = grown(buffer);
      const { bytesRead } = await handle.read(buffer, held, buffer.length - held, null);
      if (bytesRead === 0) break;
      const end = held + bytesRead;
      const lastNewline = buffer.lastIndexOf(NEWLINE, end - 1);
      if (lastNewline < 0) {
        held = end;
        continue;
      }
      const text = decode(buffer, lastNewline);
      let start = 0;
      for (let stop = text.indexOf('\n'); stop >= 0; stop = text.indexOf('\n', start)) {
        onLine(text.slice(start, stop), ++lineNo);
        start = stop + 1;
      }
      onLine(start === 0 ? text : text.slice(start), ++lineNo);
      held = end - lastNewline - 1;
      buffer.copy(buffer, 0, lastNewline + 1, end);
    }
    if (held > 0) onLine(decode(buffer, held), ++lineNo);
  } finally {
    await handle.close();
  }
}

/** The first `length` bytes of `buffer` as text. */
function decode(buffer: Buffer, length: number): string {
  return isAscii(buffer.subarray(0, length)) ? buffer.toString('latin1', 0, length) : buffer.toString('utf8', 0, length);
}

function grown(buffer: Buffer): Buffer {
  const larger = Buffer.allocUnsafe(buffer.length * 2);
  buffer.copy(larger);
  return larger;
}
