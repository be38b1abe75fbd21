// Modern Gitea's operations as gitea-js types them: operationId (the method name), HTTP method, path, summary, tags.
// Read from the doc comments the generator writes above every method in gitea-js's dist/index.js.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface GiteaOperation {
  operationId: string;
  method: string;
  /** Swagger path template, e.g. `/repos/{owner}/{repo}`. */
  path: string;
  summary: string;
}

const OPERATION = /@name (\S+)\n(?:\s*\*\s*@summary (.*)\n)?\s*\*\s*@request (GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS):(\S+)/g;

export function giteaOperations(): GiteaOperation[] {
  const require = createRequire(import.meta.url);
  const file = path.join(path.dirname(require.resolve('gitea-js')), 'index.js');
  const text = readFileSync(file, 'utf8');
  const ops: GiteaOperation[] = [];
  for (const m of text.matchAll(OPERATION)) {
    ops.push({ operationId: m[1]![0]!.toLowerCase() + m[1]!.slice(1), summary: m[2] ?? '', method: m[3]!, path: m[4]! });
  }
  if (ops.length < 300) throw new Error(`only ${ops.length} operations read from ${file}: has gitea-js's format changed?`);
  return ops;
}

/** `/repos/{owner}/{repo}` and `/repos/{o}/{r}` are the same route. */
export function routeKey(method: string, swaggerPath: string): string {
  return `${method.toUpperCase()} ${swaggerPath.replace(/\{[^}]+\}/g, '{}')}`;
}
