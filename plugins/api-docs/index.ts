// The API description (`/swagger.v1.json`, Swagger 2.0) generated at boot from the enabled plugins' routes and
// schemas, and the interactive docs page (`/api/swagger`) every error body's `url` points at.
import { definePlugin, type JsonSchema } from '../../core/plugin.js';
import { packageVersion } from '../../core/config.js';
import { buildSwagger } from './swagger.js';
import { toOpenApi31 } from './openapi.js';
import type {} from '../../schemas/contracts/version.js';
import { fail } from '../../core/errors.js';
import { loadPageAssets, PAGE_HTML, type AssetName, type PageAsset } from './page.js';

export interface ApiDocsService {
  /** The Swagger 2.0 document as served (UTF-8 JSON bytes). */
  readonly swagger: Buffer;
  /** The same document as an object (tests, embedders). */
  readonly document: JsonSchema;
  /** The same description as OpenAPI 3.1 (UTF-8 JSON bytes), served at `/openapi.v1.json`. */
  readonly openapi: Buffer;
  /** The docs page's files, read once at start. */
  readonly assets: ReadonlyMap<AssetName, PageAsset>;
}

declare module '../../core/plugin.js' {
  interface ForgeServices {
    'api-docs': ApiDocsService;
  }
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** The plugin: the description is built at start from the kernel's compiled routes and shared schemas. */
export default definePlugin<ApiDocsService>({
  name: 'api-docs',
  // The reported version (`1.23.0+forgekit-<v>`) when the version plugin is on.
  optionalDependencies: ['version'],
  start(ctx) {
    // Built on first use (the first request for it, or a test): the routes and schemas are fixed once the kernel
    // has started, and most boots (operator commands, tests) never ask, so they do not pay ~50 ms for it.
    let document: JsonSchema | undefined;
    let swagger: Buffer | undefined;
    let openapi: Buffer | undefined;
    const describe = (): JsonSchema => (document ??= buildSwagger({
      routes: ctx.kernel.routes(),
      schemas: ctx.kernel.schemas(),
      apiPrefix: ctx.config.apiPrefix,
      basePath: new URL(ctx.urls.api).pathname,
      version: ctx.services.has('version') ? ctx.services.get('version').version : packageVersion(),
      docsUrl: ctx.urls.docs,
    }));
    const assets = loadPageAssets();
    return {
      get document() { return describe(); },
      get swagger() { return (swagger ??= Buffer.from(JSON.stringify(describe()))); },
      get openapi() { return (openapi ??= Buffer.from(JSON.stringify(toOpenApi31(describe())))); },
      assets,
    };
  },
  routes: [
    {
      operationId: 'getSwaggerDocument', summary: 'The API description (Swagger 2.0) generated from the enabled plugins',
      method: 'GET',
      path: '/swagger.v1.json',
      scope: 'misc',
      mount: 'root',
      auth: 'public',
      async handler(rc) {
        const { swagger } = rc.app.services.get('api-docs');
        return { status: 200, type: 'text', body: swagger, headers: { 'Content-Type': JSON_TYPE } };
      },
    },
    {
      operationId: 'getOpenApiDocument', summary: 'The API description as OpenAPI 3.1, generated from the enabled plugins',
      method: 'GET',
      path: '/openapi.v1.json',
      scope: 'misc',
      mount: 'root',
      auth: 'public',
      async handler(rc) {
        const { openapi } = rc.app.services.get('api-docs');
        return { status: 200, type: 'text', body: openapi, headers: { 'Content-Type': JSON_TYPE } };
      },
    },
    {
      operationId: 'getSwaggerPage', summary: 'The interactive API documentation page (Swagger UI)',
      method: 'GET',
      path: '/api/swagger',
      scope: 'misc',
      mount: 'root',
      auth: 'public',
      schema: { response: { 200: { type: 'string' } } },
      async handler() {
        return { status: 200, type: 'html', body: PAGE_HTML, headers: { 'Cache-Control': 'no-cache' } };
      },
    },
    {
      operationId: 'getSwaggerPageAsset', summary: 'A file of the API documentation page',
      method: 'GET',
      path: '/api/swagger/:file',
      scope: 'misc',
      mount: 'root',
      auth: 'public',
      schema: {
        params: { type: 'object', properties: { file: { type: 'string', maxLength: 64 } }, required: ['file'] },
        response: { 200: { type: 'string' } },
      },
      async handler(rc) {
        const asset = rc.app.services.get('api-docs').assets.get(rc.params.file as AssetName);
        if (!asset) throw fail.notFound();
        return { status: 200, type: 'text', body: asset.body, headers: { 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=86400' } };
      },
    },
  ],
});
