// Reads a collection file line by line in fixed-size chunks. Reading the file whole made, at a start, a buffer and a
// string as large as the file (100 MB for 200,000 issues) per collection, dead right after the load but freed only at
// a later full collection; a chunk's buffer is reused, and its string is short-lived.
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';

/** Bytes read at a time. */
const CHUNK_BYTES = 1 << 20;

/**
 * Calls `onLine` with each line of the file (without its `\n`; a last line without one included) and its 1-based
 * number, in order. Multi-byte characters split between chunks are decoded whole; a line longer than a chunk is
 * joined from its pieces.
 */
export async function forEachLine(file: string, onLine: (line: string, lineNo: number) => void, chunkBytes = CHUNK_BYTES): Promise<void> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(chunkBytes);
    const decoder = new StringDecoder('utf8');
    let carry = '';
    let lineNo = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, chunkBytes, null);
      if (bytesRead === 0) break;
      const text = carry + decoder.write(buffer.subarray(0, bytesRead));
      let start = 0;
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
        onLine(text.slice(start, end), ++lineNo);
        start = end + 1;
      }
      carry = text.slice(start);
    }
    carry += decoder.end();
    if (carry.length > 0) onLine(carry, ++lineNo);
  } finally {
    await handle.close();
  }
}
