// Makes the CLI entry executable so `npx cairn` and the package `bin` work after `npm install`.
import { chmodSync, existsSync } from 'node:fs';

const entry = new URL('../dist/cli/cairn.mjs', import.meta.url);
if (existsSync(entry)) chmodSync(entry, 0o755);
