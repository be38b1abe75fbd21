// `GET /version`: the running server version, under the spec's key and the key later Gitea clients read.
import { definePlugin } from '../../core/plugin.js';
import { packageVersion } from '../../core/config.js';
import { ServerVersionSchema, ref } from '../../schemas/resources.js';

export default definePlugin({
  name: 'version',
  schemas: [ServerVersionSchema],
  start() {
    return { version: packageVersion() };
  },
  routes: [
    {
      operationId: 'getVersion', summary: 'Returns the version of the Gitea application',
      method: 'GET',
      path: '/version',
      auth: 'public',
      schema: { response: { 200: ref('forgekit/ServerVersion') } },
      async handler(rc) {
        const { version } = rc.app.services.get<{ version: string }>('version');
        return { status: 200, body: { Version: version, version } };
      },
    },
  ],
});
