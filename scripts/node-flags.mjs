// The V8 flags of every serving process, given on its node command line (Node refuses them in
// NODE_OPTIONS): `npm start` (scripts/start.mjs) and every server and baseline the bench starts
// (scripts/bench/servers.ts), so that a baseline is measured as the API is. A container or
// process manager that runs dist/server.js itself gives them too:
//   node --no-allocation-site-pretenuring --heap-growing-percent=50 dist/server.js
// Why each: docs/decisions.md, "Allocation-site pretenuring" and "Heap growth".

/** @type {readonly string[]} */
export const NODE_FLAGS = Object.freeze(['--no-allocation-site-pretenuring', '--heap-growing-percent=50']);
