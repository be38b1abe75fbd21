// Child process for releases-upload-memory.test.ts: a forge on <dataDir>; prints `ready <root url> <admin token>`
// once it serves, so the parent can measure this process's memory while it uploads to it.
import { startForge } from '../helpers/forge.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: releases-upload-child <dataDir>');
const f = await startForge({ dataDir });
process.stdout.write(`ready ${f.url} ${f.admin.token}\n`);
