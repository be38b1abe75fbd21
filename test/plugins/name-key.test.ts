// nameKey (plugins/repos/memory-index.ts): a number per repository name that the search index's name order compares
// before reading either entry. It must never contradict the names' own order (code units, as `<` compares strings):
// checked over random names from the names' alphabet, other ASCII, characters beyond ASCII and shared prefixes.
import t from 'tap';
import { nameKey } from '../../plugins/repos/memory-index.js';
import { prng } from '../../bench/dataset.js';

t.test('nameKey never orders two names against their code unit order', async (t) => {
  const r = prng(20261207);
  const alphabets = ['abc-._09z', 'abcdefghijklmnopqrstuvwxyz0123456789-_.', 'ab/:~ {|}`^[]@!#', 'aéßж😀\u0100\u00ff\u007f', 'a-b'];
  const nameOf = (): string => {
    const alphabet = alphabets[Math.floor(r() * alphabets.length)]!;
    const chars = [...alphabet];
    let s = r() < 0.5 ? 'bench-repo-' : '';
    const n = Math.floor(r() * 14);
    for (let i = 0; i < n; i++) s += chars[Math.floor(r() * chars.length)]!;
    return s;
  };
  const names = Array.from({ length: 3000 }, nameOf);
  let contradictions = 0;
  let decided = 0;
  let pairs = 0;
  for (let i = 0; i < 60000; i++) {
    const a = names[Math.floor(r() * names.length)]!;
    // A neighbour half the time: the same name with a character changed, added or cut.
    const b = r() < 0.5 ? names[Math.floor(r() * names.length)]! : a.slice(0, Math.floor(r() * (a.length + 1))) + nameOf().slice(0, 2);
    const ka = nameKey(a);
    const kb = nameKey(b);
    pairs++;
    if (ka !== kb) decided++;
    if ((ka < kb && !(a < b)) || (ka > kb && !(a > b))) contradictions++;
    if (a === b && ka !== kb) contradictions++;
  }
  t.equal(contradictions, 0, `${pairs} pairs: no key order against the names' order`);
  t.ok(decided > pairs / 2, `most pairs decided by their keys alone (${decided})`);
  t.ok(names.every((n) => Number.isSafeInteger(nameKey(n))), 'every key an exact integer');
  t.ok(nameKey('abcdefghi') < nameKey('abcdefghj') && nameKey('abcdefghiz') === nameKey('abcdefghia'), 'nine characters held, the tenth not');
  t.ok(nameKey('a') < nameKey('a-') && nameKey('') < nameKey('-'), 'a name before its longer names');
});
