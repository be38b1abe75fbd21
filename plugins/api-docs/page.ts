// The interactive docs page (`GET /api/swagger`, Gitea's address): Swagger UI from the swagger-ui-dist package, its
// assets served by forgekit itself (nothing from a CDN), pointed at the generated `/swagger.v1.json`.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface PageAsset {
  body: Buffer;
  type: string;
}

/** The files the page loads, by the name it asks for; nothing else of the package is reachable. */
export const ASSET_NAMES = ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png', 'init.js'] as const;
export type AssetName = (typeof ASSET_NAMES)[number];

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.png': 'image/png',
};

// URLs are relative to the page (`/api/swagger`), so the page works under an embedder's mount prefix too:
// assets at `/api/swagger/<name>`, the description at `/swagger.v1.json`.
const INIT = `// forgekit: Swagger UI on the generated API description.
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: new URL('../swagger.v1.json', window.location.href).href,
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    docExpansion: 'none',
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

export const PAGE_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>forgekit API</title>
<link rel="stylesheet" href="swagger/swagger-ui.css">
<link rel="icon" type="image/png" href="swagger/favicon-32x32.png" sizes="32x32">
<link rel="icon" type="image/png" href="swagger/favicon-16x16.png" sizes="16x16">
</head>
<body>
<div id="swagger-ui"></div>
<script src="swagger/swagger-ui-bundle.js"></script>
<script src="swagger/init.js"></script>
</body>
</html>
`;

/** Reads the page's assets once, at start. */
export function loadPageAssets(): Map<AssetName, PageAsset> {
  const require = createRequire(import.meta.url);
  const dir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const assets = new Map<AssetName, PageAsset>();
  for (const name of ASSET_NAMES) {
    const body = name === 'init.js' ? Buffer.from(INIT) : readFileSync(path.join(dir, name));
    assets.set(name, { body, type: TYPES[path.extname(name)]! });
  }
  return assets;
}
