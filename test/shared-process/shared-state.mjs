// What the test files of one process share, beyond the packages they load (worker.mjs):
// process.env, the globals, the built-in objects and Node's own modules. sharedState() takes
// a picture of their properties; .changes() names those replaced or removed since (and any
// variable of process.env set or unset), so that a file that patches one (a DNS tripwire, a
// started SDK) is caught rather than changing the files after it. The picture is of the
// properties themselves, not of what the objects they hold contain.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

const NODE_MODULES = [
  'assert', 'async_hooks', 'buffer', 'child_process', 'crypto', 'diagnostics_channel', 'dns', 'dns/promises', 'events',
  'fs', 'fs/promises', 'http', 'http2', 'https', 'module', 'net', 'os', 'path', 'perf_hooks', 'querystring', 'readline',
  'stream', 'string_decoder', 'timers', 'timers/promises', 'tls', 'url', 'util', 'v8', 'vm', 'worker_threads', 'zlib',
];

const BUILT_INS = {
  Object, 'Object.prototype': Object.prototype, 'Function.prototype': Function.prototype, Array, 'Array.prototype': Array.prototype,
  'String.prototype': String.prototype, 'Number.prototype': Number.prototype, Promise, 'Promise.prototype': Promise.prototype,
  Date, 'Date.prototype': Date.prototype, Math, JSON, Reflect, Error, 'Error.prototype': Error.prototype, 'RegExp.prototype': RegExp.prototype,
  'Map.prototype': Map.prototype, 'Set.prototype': Set.prototype, Symbol, 'Buffer.prototype': Buffer.prototype,
};

function watched() {
  const objects = [['globalThis', globalThis], ...Object.entries(BUILT_INS)];
  for (const name of NODE_MODULES) {
    const exports = require(`node:${name}`);
    objects.push([`node:${name}`, exports]);
    if (typeof exports === 'function' && exports.prototype) objects.push([`node:${name} prototype`, exports.prototype]);
  }
  return objects;
}

const describe = (object) => new Map(Reflect.ownKeys(object).map((key) => [key, Reflect.getOwnPropertyDescriptor(object, key)]));

/**
 * Whether a property was replaced or removed. A property added is not counted: packages that
 * keep their state on globalThis (zod) add it when first loaded, once per process as their
 * module state is, and code that does not know a new name does not read it. Nor is a lazy
 * global that Node turns from an accessor into its value on first use.
 */
function replaced(was, is) {
  if (!was) return false;
  if (!is) return true;
  if ('value' in was) return !('value' in is) || !Object.is(was.value, is.value);
  if ('value' in is) return false;
  return was.get !== is.get || was.set !== is.set;
}

/**
 * Makes now what Node makes on the first use of a feature and then keeps for the process, so
 * that a file's first use of it is not taken for a change: fetch's dispatcher.
 */
export async function settle() {
  await fetch('data:,');
}

export function sharedState() {
  const env = { ...process.env };
  const pictures = watched().map(([name, object]) => [name, object, describe(object)]);
  return {
    changes() {
      const changed = [];
      for (const key of new Set([...Object.keys(env), ...Object.keys(process.env)])) {
        if (env[key] !== process.env[key]) changed.push(`process.env.${key}`);
      }
      for (const [name, object, was] of pictures) {
        const is = describe(object);
        for (const key of new Set([...was.keys(), ...is.keys()])) {
          if (replaced(was.get(key), is.get(key))) changed.push(`${name}.${String(key)}`);
        }
      }
      return changed;
    },
  };
}
