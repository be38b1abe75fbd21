// Routing with find-my-way: each route's compiled context (validators, serializers, auth level) lives in its store.
import FindMyWay from 'find-my-way';
import type { HTTPVersion } from 'find-my-way';
import type { HttpMethod } from './plugin.js';

const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface Match<T> {
  route: T;
  params: Record<string, string | undefined>;
}

export class Router<T> {
  // Strict: no trailing-slash or duplicate-slash folding, so one resource has one URL. Static segments win over params.
  private readonly fmw = FindMyWay<HTTPVersion.V1>({ ignoreTrailingSlash: false, ignoreDuplicateSlashes: false, caseSensitive: true, maxParamLength: 500 });
  private readonly routes: T[] = [];

  add(method: HttpMethod, path: string, route: T): void {
    this.fmw.on(method, path, () => undefined, route as unknown as Record<string, unknown>);
    this.routes.push(route);
  }

  find(method: string, path: string): Match<T> | null {
    // HEAD is served by the GET route (Node drops the body of a HEAD response).
    const found = this.fmw.find((method === 'HEAD' ? 'GET' : method) as HttpMethod, path);
    if (!found) return null;
    return { route: found.store as unknown as T, params: found.params };
  }

  /** The methods a path answers to, for 405's Allow header; empty when the path is unknown. */
  allowed(path: string): string[] {
    const allowed: string[] = METHODS.filter((m) => this.fmw.find(m, path) !== null);
    if (allowed.includes('GET')) allowed.push('HEAD');
    return allowed;
  }
}
