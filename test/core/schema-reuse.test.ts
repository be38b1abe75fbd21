// Compiling less at boot: a serializer is built from only the shared schemas its `$ref`s reach, and validators and
// serializers compiled for the same schema objects are reused by the next kernel in the process — never when a
// shared schema it reached is a different object.
import t from 'tap';
import { SerializerFactory } from '../../core/serialize.js';
import { SchemaRegistry } from '../../core/validation.js';
import { CompiledBySchema, directRefs, reachableSchemas } from '../../core/schema-refs.js';
import type { JsonSchema } from '../../core/plugin.js';

const user = (): JsonSchema => ({ $id: 'test/User', type: 'object', properties: { id: { type: 'integer' }, login: { type: 'string' } }, required: ['id'] });
const repo = (): JsonSchema => ({
  $id: 'test/Repo', type: 'object',
    // (No anyOf around a $ref: fast-json-stringify hands those to Ajv, which resolves them relative to this $id.)
  properties: { id: { type: 'integer' }, owner: { $ref: 'test/User' }, self: { $ref: 'test/Repo#/properties/id' } },
});
const unrelated: JsonSchema = { $id: 'test/Other', type: 'object', properties: { x: { type: 'string', enum: ['$ref'] } } };

t.test('directRefs and reachableSchemas', async (t) => {
  const list: JsonSchema = { type: 'array', items: { $ref: 'test/Repo#' }, examples: [{ $ref: 'not/a/ref' }] };
  t.same(directRefs(list), ['test/Repo'], 'the id before #; examples, enum and const are data, not schemas');
  t.same(directRefs({ $ref: '#/definitions/x', definitions: { x: { type: 'string' } } }), [''], 'a reference inside the same document');
  const u = user();
  const r = repo();
  const shared = new Map<string, JsonSchema>([['test/User', u], ['test/Repo', r], ['test/Other', unrelated]]);
  const deps = reachableSchemas(list, (id) => shared.get(id));
  t.same(new Map(deps ?? []), new Map([['test/Repo', r], ['test/User', u]]), 'transitively, once each (Repo refers to itself too)');
  t.equal(reachableSchemas({ $ref: 'test/Missing' }, (id) => shared.get(id)), null, 'an id that is not shared: no shortcut');
  t.same(reachableSchemas(r, (id) => shared.get(id)), [['test/User', u]], "a schema's own $id is not a dependency");
});

t.test('CompiledBySchema answers for the same schema (object or content) and the same shared objects', async (t) => {
  const cache = new CompiledBySchema<string>();
  const s: JsonSchema = { type: 'string' };
  const u = user();
  cache.set(s, [['test/User', u]], 'compiled');
  t.equal(cache.get(s, [['test/User', u]]), 'compiled');
  t.equal(cache.get(s, [['test/User', user()]]), undefined, 'an equal but different User object');
  t.equal(cache.get(s, []), undefined, 'fewer dependencies');
  t.equal(cache.get({ type: 'string' }, [['test/User', u]]), 'compiled', 'an equal schema object: the same content compiles alike');
  t.equal(cache.get({ type: 'string' }, [['test/User', user()]]), undefined, 'but not with other shared objects');
  t.equal(cache.get({ type: 'string', minLength: 1 }, [['test/User', u]]), undefined, 'other content');
  cache.set({ type: 'string' }, [], 'without deps');
  t.equal(cache.get({ type: 'string' }, []), 'without deps', 'one content, two sets of shared objects');
  t.equal(cache.get(s, [['test/User', u]]), 'compiled');
});

t.test('serializers: the reached shared schemas suffice, the output is the full set\'s, and a second factory reuses them', async (t) => {
  const u = user();
  const r = repo();
  const list: JsonSchema = { type: 'array', items: { $ref: 'test/Repo' } };
  const value = [{ id: 1, owner: { id: 2, login: 'o', secret: 'x' }, self: 1, extra: true }];
  const first = new SerializerFactory([u, r, unrelated]);
  const fn = first.compile(list);
  t.same(JSON.parse(fn(value)), [{ id: 1, owner: { id: 2, login: 'o' }, self: 1 }], 'nested references and a pointer into a shared schema serialise; unknown fields dropped');
  t.equal(new SerializerFactory([u, r]).compile(list), fn, 'another kernel with the same schema objects: the same serializer');
  const changedUser: JsonSchema = { ...user(), properties: { id: { type: 'integer' } } };
  const other = new SerializerFactory([changedUser, r]).compile(list);
  t.not(other, fn, 'a different User object: compiled again');
  t.same(JSON.parse(other(value)), [{ id: 1, owner: { id: 2 }, self: 1 }], 'with that User');
  // Evidence that a build is handed only what it reaches: fast-json-stringify meta-validates every schema it is given,
  // so a malformed shared schema nothing refers to would fail the build if it were passed (the kernel's Ajv checks
  // each shared schema once when it is added).
  const malformed = { $id: 'test/Malformed', type: 'no-such-type' } as JsonSchema;
  t.doesNotThrow(() => new SerializerFactory([u, r, malformed]).compile({ type: 'array', items: { $ref: 'test/User' } }), 'an unrelated malformed schema is not looked at');
  t.throws(() => new SerializerFactory([u, r, malformed]).compile({ $ref: 'test/Malformed' }), 'the malformed one itself still fails');
  t.throws(() => new SerializerFactory([u, r]).compile({ type: 'object', properties: { x: { $ref: 'test/Missing' } } }), /test\/Missing/,
    'a reference to no shared schema: built with the whole set, which reports the missing schema');
});

t.test('validators: reused across registries with the same shared schema objects, recompiled otherwise', async (t) => {
  const u = user();
  const body: JsonSchema = { type: 'object', properties: { owner: { $ref: 'test/User' } }, required: ['owner'] };
  const a = new SchemaRegistry();
  a.add(u, 'test');
  const b = new SchemaRegistry();
  b.add(u, 'test');
  const validateA = a.compileBody(body);
  const validateB = b.compileBody(body);
  t.same(validateB({ owner: { id: 1 } }), { owner: { id: 1 } });
  t.throws(() => validateA({ owner: {} }), /body\.owner\.id: is required/);
  t.throws(() => validateB({ owner: { id: 'x' } }), /body\.owner\.id: must be integer/);
  const c = new SchemaRegistry();
  c.add({ ...user(), required: [] }, 'test');
  const validateC = c.compileBody(body);
  t.same(validateC({ owner: {} }), { owner: {} }, 'a registry whose User differs validates by its own User');
  t.throws(() => validateA({ owner: {} }), /is required/, 'and the first registry still by its own');
});

t.test('schemas are checked against the meta-schema once per process, and a malformed one is refused by every registry', async (t) => {
  const malformedShared = { $id: 'test/Bad', type: 'no-such-type' } as JsonSchema;
  const malformedBody = { type: 'object', properties: { x: { minLength: 'three' } } } as JsonSchema;
  for (const round of [1, 2]) {
    const registry = new SchemaRegistry();
    t.throws(() => registry.add(malformedShared, 'test'), /schema is invalid: data\/type must be equal to one of the allowed values/, `round ${round}: a malformed shared schema`);
    t.throws(() => registry.compileBody(malformedBody), /schema is invalid: .*minLength must be integer/, `round ${round}: a malformed route schema`);
    t.equal(registry.sharedSchemas().length, 0, `round ${round}: nothing half-registered`);
  }
  // A kernel's own Ajv leaves the meta-schema to the process-wide checker (it would compile it, ~45 ms, per kernel).
  t.equal(new SchemaRegistry().ajv.opts.validateSchema, false);
});
