// Rewrites the README's table of served gitea-js groups (between its header row and the **all** row) from the routes.
// Run after a build: `npm run readme:gitea-table`.
import { readFileSync, writeFileSync } from 'node:fs';
import { servedTable } from '../dist/test/helpers/gitea-js-table.js';

const file = new URL('../README.md', import.meta.url);
const readme = readFileSync(file, 'utf8');
const start = readme.indexOf('| gitea-js group (Gitea tag) | served | methods |');
const endRow = readme.indexOf('| **all** |', start);
if (start < 0 || endRow < 0) throw new Error('README.md has no gitea-js table to rewrite');
const end = readme.indexOf('\n', endRow);
const { table, count, total } = servedTable();
writeFileSync(file, readme.slice(0, start) + table + (end < 0 ? '' : readme.slice(end)));
console.log(`README table rewritten: ${count}/${total} gitea-js methods served`);
