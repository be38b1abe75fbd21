// The API description (`/swagger.v1.json`, Swagger 2.0) generated at boot from the enabled plugins' routes and
// schemas, and the interactive docs page (`/api/swagger`) every error body's `url` points at.
import { definePlugin, type JsonSchema } from '../../core/plugin.js';
import { packageVersion } from '../../core/config.js';
import { buildSwagger, type DescribedRoute } from './swagger.js';

/** What the description is built from: the served routes and the shared schemas they `$ref`. */
export interface RouteSource {
  routes(): readonly DescribedRoute[];
  schemas(): readonly JsonSchema[];
}

export interface ApiDocsService {
  /** The Swagger 2.0 document as served (UTF-8 JSON bytes). */
  readonly swagger: Buffer;
  /** The same document as an object (tests, embedders). */
  readonly document: JsonSchema;
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    'api-docs': ApiDocsService;
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The plugin, reading the served routes from `source`. The distribution (`createForge`) hands it the resolved plugin
 * list; without a source the description lists no routes.
 */
export function createApiDocs(source?: RouteSource) {
  return definePlugin<ApiDocsService>({
    name: 'api-docs',
    start(ctx) {
      const document = buildSwagger({
        routes: source?.routes() ?? [],
        schemas: source?.schemas() ?? [],
        apiPrefix: ctx.config.apiPrefix,
        version: packageVersion(),
        docsUrl: ctx.urls.docs,
      });
      return { document, swagger: Buffer.from(JSON.stringify(document)) };
    },
    routes: [
      {
        operationId: 'getSwaggerDocument', summary: 'The API description (Swagger 2.0) generated from the enabled plugins',
        method: 'GET',
        path: '/swagger.v1.json',
        mount: 'root',
        auth: 'public',
        async handler(rc) {
          const { swagger } = rc.app.services.get('api-docs');
          return { status: 200, type: 'text', body: swagger, headers: { 'Content-Type': JSON_TYPE } };
        },
      },
    ],
  });
}

export default createApiDocs();
