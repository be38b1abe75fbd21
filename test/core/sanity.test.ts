import t from 'tap';
t.test('sanity', async (t) => { t.equal(1 + 1, 2); });
