// Test helper for UserList replies: the exact text a list must be, made of single-user answers.
import type { TestForge } from './forge.js';

/**
 * The UserList text a viewer must get for these logins, in this order: the `GET /users/{username}` answers the same
 * viewer gets, joined into one array (byte for byte what a list of those Users serialises to).
 */
export async function userListAsSingles(f: TestForge, logins: string[], token?: string): Promise<string> {
  const singles: string[] = [];
  for (const login of logins) {
    const res = await f.request('GET', `/users/${login}`, { token });
    if (res.status !== 200) throw new Error(`GET /users/${login}: ${res.status}`);
    singles.push(res.text);
  }
  return `[${singles.join(',')}]`;
}
