// Response serialisation: every JSON response is written by a serializer compiled at boot from its schema.
import fastJson from 'fast-json-stringify';
import type { JsonSchema } from './plugin.js';

export type Serializer = (value: unknown) => string;

export class SerializerFactory {
  private readonly external: Record<string, JsonSchema>;
  private readonly cache = new Map<JsonSchema, Serializer>();

  constructor(sharedSchemas: JsonSchema[]) {
    this.external = Object.fromEntries(sharedSchemas.map((s) => [s.$id as string, s]));
  }

  compile(schema: JsonSchema): Serializer {
    let fn = this.cache.get(schema);
    if (!fn) {
      fn = fastJson(schema as any, { schema: this.external as any }) as Serializer;
      this.cache.set(schema, fn);
    }
    return fn;
  }
}
