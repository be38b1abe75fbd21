// What a person starting the server sees first: where it listens, and how to get a site administrator when none exists.
import type { Forge } from '../../plugins/index.js';

export async function firstStartHints(forge: Forge, url: string): Promise<void> {
  const root = `${url}/`;
  forge.log.info(`forgekit is ready at ${root} (API ${root}${forge.config.apiPrefix.replace(/^\//, '')}/, docs ${root}api/swagger)`);
  let admins = 1;
  try {
    admins = await forge.store.collection('users').count({ type: 'user', isAdmin: true });
  } catch {
    return; // no users plugin: nothing to say
  }
  if (admins === 0) {
    forge.log.warn('no site administrator yet: stop the server and run `forgekit admin user create --username NAME --password PASS --email EMAIL --admin`, '
      + 'or start it with FORGEKIT_ADMIN_USERNAME, FORGEKIT_ADMIN_PASSWORD and FORGEKIT_ADMIN_EMAIL set');
  }
}
