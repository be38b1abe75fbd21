// One Ajv instance for the whole kernel: shared schemas added by $id, every route's validators compiled at boot.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ForgeError } from './errors.js';
import type { JsonSchema } from './plugin.js';
import { CompiledBySchema, reachableSchemas } from './schema-refs.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => void;

export interface CompiledInput {
  /** Validates (and coerces scalars from strings first); throws ForgeError VALIDATION naming the field. */
  (value: Record<string, unknown>): Record<string, unknown>;
}

/**
 * Validators of every kernel in this process, by schema object and the shared schema objects it reached: the same
 * options, formats and schemas compile to the same function, so a second kernel (tests, embedders) reuses it.
 */
const compiled = new CompiledBySchema<ValidateFunction>();

// allErrors: false stops at the first failure: cheaper, and a guard against hostile inputs (fastify does the same).
const AJV_OPTIONS = { allErrors: false, strict: false, useDefaults: true, coerceTypes: false } as const;

/**
 * Checks schemas against JSON Schema's meta-schema for every kernel in this process. An Ajv instance compiles the
 * meta-schema before the first schema it checks (~45 ms); each kernel's own instance skips the check and leaves it
 * to this one, which checks a schema object once.
 */
const metaChecker = { ajv: undefined as Ajv | undefined, checked: new WeakSet<object>() };

function checkSchema(schema: JsonSchema): void {
  if (metaChecker.checked.has(schema)) return;
  metaChecker.ajv ??= new Ajv(AJV_OPTIONS);
  const checker = metaChecker.ajv;
  // The same words Ajv throws with when it checks a schema itself.
  if (!checker.validateSchema(schema)) throw new Error(`schema is invalid: ${checker.errorsText(checker.errors)}`);
  metaChecker.checked.add(schema);
}

export class SchemaRegistry {
  readonly ajv = new Ajv({ ...AJV_OPTIONS, validateSchema: false });
  private readonly shared = new Map<string, JsonSchema>();
  private readonly refs = new Map<JsonSchema, string[]>();

  constructor() {
    addFormats(this.ajv);
  }

  /** Adds a shared $id'd schema; the same $id twice is fine when it is the same schema. */
  add(schema: JsonSchema, owner: string): void {
    const id = schema.$id as string | undefined;
    if (!id) throw new Error(`plugin "${owner}": a shared schema has no $id`);
    const existing = this.shared.get(id);
    if (existing) {
      if (JSON.stringify(existing) !== JSON.stringify(schema)) {
        throw new Error(`plugin "${owner}": schema ${id} is already registered with a different definition`);
      }
      return;
    }
    checkSchema(schema);
    this.shared.set(id, schema);
    this.ajv.addSchema(schema);
  }

  /** A route schema's validator (compiled once per process for the same schema and shared schemas). */
  private compile(schema: JsonSchema): ValidateFunction {
    checkSchema(schema);
    const deps = reachableSchemas(schema, (id) => this.shared.get(id), this.refs);
    // A schema with its own $id is registered in the instance that compiles it: compile it here every time.
    if (!deps || schema.$id !== undefined) return this.ajv.compile(schema);
    const known = compiled.get(schema, deps);
    if (known) return known;
    const validate = this.ajv.compile(schema);
    compiled.set(schema, deps, validate);
    return validate;
  }

  sharedSchemas(): JsonSchema[] {
    return [...this.shared.values()];
  }

  /** Params and querystring arrive as strings: coerce by the declared property types, then validate. */
  compileStringInput(schema: JsonSchema, where: 'path' | 'query'): CompiledInput {
    const validate = this.compile(schema);
    const coercers = new Map<string, (raw: unknown) => unknown>();
    for (const [key, prop] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
      if (prop.type === 'array') {
        // An array parameter takes every repeat (`status-types=unread&status-types=pinned`, as gitea-js sends arrays).
        const item = scalarCoercer(prop.items ?? {});
        coercers.set(key, (raw) => (Array.isArray(raw) ? raw : [raw]).map(item));
      } else {
        // Any other repeated query parameter: the first value wins, like Go's Query().Get.
        const one = scalarCoercer(prop);
        coercers.set(key, (raw) => one(Array.isArray(raw) ? raw[0] : raw));
      }
    }
    // Walks the parameters given (a few), not the ones declared (up to twenty for a search), into a fresh object.
    return (input) => {
      const value: Record<string, unknown> = {};
      for (const key in input) {
        const raw = input[key];
        const coerce = raw === undefined ? undefined : coercers.get(key);
        const coerced = coerce === undefined ? raw : coerce(raw);
        // `?__proto__=…` stays an own property (as a spread would make it), never the object's prototype.
        if (key === '__proto__') Object.defineProperty(value, key, { value: coerced, enumerable: true, writable: true, configurable: true });
        else value[key] = coerced;
      }
      check(validate, value, where);
      return value;
    };
  }

  /** JSON bodies: keys matched to the schema's property names case-insensitively (like Go's encoding/json). */
  compileBody(schema: JsonSchema): (value: unknown) => unknown {
    const validate = this.compile(schema);
    const names = new Map<string, string>();
    for (const key of Object.keys(schema.properties ?? {})) names.set(key.toLowerCase(), key);
    return (input) => {
      let value = input;
      if (names.size && value !== null && typeof value === 'object' && !Array.isArray(value)) {
        const out: Record<string, unknown> = {};
        for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
          if (key === '__proto__') continue; // never let a body key reach an object's prototype
          const canonical = names.get(key.toLowerCase()) ?? key;
          // An exact-case key wins over a case-folded duplicate.
          if (canonical in out && key !== canonical) continue;
          out[canonical] = v;
        }
        value = out;
      }
      check(validate, value, 'body');
      return value;
    };
  }
}

function scalarCoercer(prop: JsonSchema): (raw: unknown) => unknown {
  const types: string[] = Array.isArray(prop.type) ? prop.type : prop.type ? [prop.type] : [];
  if (types.includes('integer') || types.includes('number')) {
    return (raw) => {
      if (typeof raw !== 'string') return raw;
      const trimmed = raw.trim();
      if (trimmed === '' || !/^-?\d+(\.\d+)?$/.test(trimmed)) return raw; // left as string: validation names it
      const n = Number(trimmed);
      return Number.isFinite(n) ? n : raw;
    };
  }
  if (types.includes('boolean')) {
    return (raw) => (raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : raw);
  }
  return (raw) => raw;
}

function check(validate: ValidateFunction, value: unknown, where: string): void {
  if (!validate(value)) throw new ForgeError('VALIDATION', describe(validate.errors?.[0], where));
}

/** "body.name: must match pattern ..." — the field first, so clients know what to fix. */
export function describe(err: ErrorObject | undefined, where: string): string {
  if (!err) return `${where}: invalid`;
  let field = err.instancePath.replace(/^\//, '').replace(/\//g, '.');
  if (err.keyword === 'required') field = field ? `${field}.${err.params.missingProperty}` : String(err.params.missingProperty);
  if (err.keyword === 'additionalProperties') field = field ? `${field}.${err.params.additionalProperty}` : String(err.params.additionalProperty);
  const message = err.keyword === 'additionalProperties' ? 'is not allowed' : err.keyword === 'required' ? 'is required' : err.message ?? 'is invalid';
  return `${where}${field ? '.' + field : ''}: ${message}`;
}
