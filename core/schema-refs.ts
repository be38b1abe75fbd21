// The shared schemas a schema reaches through `$ref`s, and a process-wide cache of what was compiled from a schema
// with exactly those shared schemas. Embedders and tests boot several kernels in one process; a plugin's schemas
// are module constants, so a validator or serializer compiled for the same objects is reused, not compiled again.
import type { JsonSchema } from './plugin.js';

/** Shared schemas by `$id`, in the order met. */
export type SchemaDeps = Array<[id: string, schema: JsonSchema]>;

/**
 * The shared schemas `schema` reaches through `$ref`s (transitively), looked up by `$id` in `shared`; null when a
 * reference names nothing there (a relative or unknown one: the caller compiles without the shortcut).
 */
export function reachableSchemas(schema: JsonSchema, shared: (id: string) => JsonSchema | undefined, refsCache?: Map<JsonSchema, string[]>): SchemaDeps | null {
  const out: SchemaDeps = [];
  const seen = new Set<string>();
  const own = typeof schema.$id === 'string' ? schema.$id : '';
  const pending = directRefs(schema).filter((id) => id !== own);
  while (pending.length) {
    const id = pending.pop()!;
    if (id === '' || seen.has(id)) continue;
    const target = shared(id);
    if (!target) return null;
    seen.add(id);
    out.push([id, target]);
    let refs = refsCache?.get(target);
    if (!refs) {
      refs = directRefs(target);
      refsCache?.set(target, refs);
    }
    pending.push(...refs.filter((ref) => ref !== id));
  }
  return out;
}

/** The schema ids (the part before `#`) of every `$ref` inside `schema`; '' for a reference within the same document. */
export function directRefs(schema: unknown): string[] {
  const out: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const hash = value.indexOf('#');
        out.push(hash < 0 ? value : value.slice(0, hash));
      } else if (key !== 'enum' && key !== 'const' && key !== 'default' && key !== 'examples') {
        walk(value);
      }
    }
  };
  walk(schema);
  return out;
}

/**
 * What was compiled from a schema, per set of shared schema objects it reached: by the schema object, then by its
 * content — plugins build equal schemas as separate objects (a route's page query, a path of owner and repo), and a
 * boot compiled 216 validators where 143 differ (~0.15 s).
 */
export class CompiledBySchema<T> {
  private readonly entries = new WeakMap<JsonSchema, Array<{ deps: SchemaDeps; value: T }>>();
  private readonly byContent = new Map<string, Array<{ deps: SchemaDeps; value: T }>>();

  get(schema: JsonSchema, deps: SchemaDeps): T | undefined {
    for (const entry of this.entries.get(schema) ?? []) if (sameDeps(entry.deps, deps)) return entry.value;
    for (const entry of this.byContent.get(JSON.stringify(schema)) ?? []) {
      if (sameDeps(entry.deps, deps)) {
        add(this.entries, schema, entry);
        return entry.value;
      }
    }
    return undefined;
  }

  set(schema: JsonSchema, deps: SchemaDeps, value: T): void {
    const entry = { deps, value };
    add(this.entries, schema, entry);
    const content = JSON.stringify(schema);
    this.byContent.set(content, [...(this.byContent.get(content) ?? []), entry]);
  }
}

function add<E>(map: WeakMap<JsonSchema, E[]>, schema: JsonSchema, entry: E): void {
  const list = map.get(schema);
  if (list) list.push(entry);
  else map.set(schema, [entry]);
}

function sameDeps(a: SchemaDeps, b: SchemaDeps): boolean {
  if (a.length !== b.length) return false;
  const byId = new Map(a);
  for (const [id, schema] of b) if (byId.get(id) !== schema) return false;
  return true;
}
