// Response serialisation: every JSON response is written by a serializer compiled at boot from its schema.
import fastJson from 'fast-json-stringify';
import type { JsonSchema } from './plugin.js';
import { CompiledBySchema, reachableSchemas } from './schema-refs.js';

export type Serializer = (value: unknown) => string;

/** Serializers of every kernel in this process, by schema object and the shared schema objects it reached. */
const compiled = new CompiledBySchema<Serializer>();

export class SerializerFactory {
  private readonly external: Record<string, JsonSchema>;
  private readonly cache = new Map<JsonSchema, Serializer>();
  private readonly refs = new Map<JsonSchema, string[]>();

  constructor(sharedSchemas: JsonSchema[]) {
    this.external = Object.fromEntries(sharedSchemas.map((s) => [s.$id as string, s]));
  }

  compile(schema: JsonSchema): Serializer {
    let fn = this.cache.get(schema);
    if (!fn) {
      fn = this.build(schema);
      this.cache.set(schema, fn);
    }
    return fn;
  }

  /**
   * fast-json-stringify checks every schema it is given against the meta-schema on each build, so handing each of
   * ~260 serializers all shared schemas cost half a second of every boot. Each build gets only the shared schemas
   * its `$ref`s reach; a reference this walk cannot place (a relative one) falls back to the whole set.
   */
  private build(schema: JsonSchema): Serializer {
    const deps = reachableSchemas(schema, (id) => this.external[id], this.refs);
    if (deps) {
      const known = compiled.get(schema, deps);
      if (known) return known;
      try {
        const fn = fastJson(schema as any, { schema: Object.fromEntries(deps) as any }) as Serializer;
        compiled.set(schema, deps, fn);
        return fn;
      } catch {
        // An unresolved reference: the full set below resolves it or reports the real error.
      }
    }
    return fastJson(schema as any, { schema: this.external as any }) as Serializer;
  }
}
