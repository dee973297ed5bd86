// The V8 flags of every serving process, given on its node command line (Node refuses them in
// NODE_OPTIONS). They are written once, in package.json's `start` script
// (`exec node <flags> scripts/start.mjs`), and read from there by every server and baseline
// the bench and the tests start (scripts/bench/servers.ts), so that a baseline is measured as
// the API is. A container or process manager that runs dist/server.js itself gives them too:
//   node --no-allocation-site-pretenuring --heap-growing-percent=50 dist/server.js
// Why each: docs/decisions.md, "Allocation-site pretenuring" and "Heap growth".
import { readFileSync } from 'node:fs';

const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** @type {readonly string[]} */
export const NODE_FLAGS = Object.freeze(scripts.start.split(/\s+/).filter((word) => word.startsWith('--')));
