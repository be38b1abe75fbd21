// Serves the API description (`/swagger.v1.json`) that every error body's `url` points at.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { definePlugin } from '../../core/plugin.js';
import { PACKAGE_ROOT } from '../../core/config.js';

export default definePlugin({
  name: 'api-docs',
  start() {
    return { document: readFileSync(path.join(PACKAGE_ROOT, 'plugins/api-docs/swagger.v1.json')) };
  },
  routes: [
    {
      operationId: 'getSwaggerDocument', summary: 'The API description (Swagger 2.0) generated from the enabled plugins',
      method: 'GET',
      path: '/swagger.v1.json',
      mount: 'root',
      auth: 'public',
      async handler(rc) {
        const { document } = rc.app.services.get<{ document: Buffer }>('api-docs');
        return { status: 200, type: 'text', body: document, headers: { 'Content-Type': 'application/json; charset=utf-8' } };
      },
    },
  ],
});
