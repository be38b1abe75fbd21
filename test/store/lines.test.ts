// Reading a collection file line by line in chunks: the same lines as splitting the whole text, whatever the chunk
// size, with multi-byte characters split between chunks and lines longer than a chunk.
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { forEachLine } from '../../core/store/embedded/lines.js';
import { removeDir, tempDir } from './helpers.js';

async function linesOf(file: string, chunkBytes?: number): Promise<Array<[string, number]>> {
  const out: Array<[string, number]> = [];
  await forEachLine(file, (line, n) => out.push([line, n]), chunkBytes);
  return out;
}

/** What splitting the whole text gives (a final `\n` ends the last line; it does not start an empty one). */
function expected(text: string): Array<[string, number]> {
  const parts = text.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts.map((line, i) => [line, i + 1]);
}

t.test('the lines of a file, for every chunk size', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const file = path.join(dir, 'c.db');
  const pieces = ['{"_id":"a","t":"plain"}', '', '{"_id":"é","t":"ünïcødé"}', '{"t":"漢字かな","e":"😀👍🏽"}', 'x'.repeat(40), '🎉'];
  const cases = [
    pieces.join('\n') + '\n',
    pieces.join('\n'), // a last line without its newline
    '\n\n',
    '',
    pieces.slice(2).join('\n\n'),
  ];
  for (const text of cases) {
    await writeFile(file, text);
    for (const chunk of [1, 2, 3, 5, 7, 16, 41, 1 << 20]) {
      t.same(await linesOf(file, chunk), expected(text), `${JSON.stringify(text.slice(0, 12))}… in chunks of ${chunk}`);
    }
  }
});

t.test('an error thrown for a line ends the read and reaches the caller', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const file = path.join(dir, 'c.db');
  await writeFile(file, 'a\nb\nc\n');
  const seen: string[] = [];
  await t.rejects(forEachLine(file, (line) => {
    seen.push(line);
    if (line === 'b') throw new Error('corrupt');
  }, 2), /corrupt/);
  t.same(seen, ['a', 'b'], 'no line after the failing one');
  await t.rejects(forEachLine(path.join(dir, 'missing.db'), () => {}), { code: 'ENOENT' });
});

t.test('ASCII and non-ASCII reads alike, lines longer than the buffer, bytes that are not UTF-8', async (t) => {
  const dir = await tempDir();
  t.teardown(() => removeDir(dir));
  const file = path.join(dir, 'c.db');
  const long = `{"d":"${'abc'.repeat(50)}é${'xyz'.repeat(50)}"}`;
  const text = ['{"a":1}', long, '{"b":"plain ascii"}', `{"c":"ü"}`, long.replace('é', 'e'), ''].join('\n');
  await writeFile(file, text);
  for (const chunk of [4, 9, 64, 1 << 20]) t.same(await linesOf(file, chunk), expected(text), `in chunks of ${chunk}`);
  // An invalid byte decodes as U+FFFD, as a UTF-8 decode of the whole file does.
  await writeFile(file, Buffer.concat([Buffer.from('ok\nbad'), Buffer.from([0xff]), Buffer.from('\nend\n')]));
  for (const chunk of [2, 5, 1 << 20]) t.same(await linesOf(file, chunk), [['ok', 1], ['bad\ufffd', 2], ['end', 3]], `invalid byte, chunks of ${chunk}`);
});
