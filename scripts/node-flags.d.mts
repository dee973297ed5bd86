/** The V8 flags of every serving process, on its node command line (scripts/node-flags.mjs). */
export declare const NODE_FLAGS: readonly string[];
