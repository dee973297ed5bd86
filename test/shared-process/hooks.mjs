// Module resolution for test files that share a process (worker.mjs). A test file is imported
// with `?test-file=N`, and every module of the project it reaches (src/, test/, scripts/) gets
// the same tag, so that each file has its own copy of the project's modules and of their state,
// as it had in a process of its own. Packages in node_modules carry no tag: loading them once is
// what the files share. `tap` from a tagged module is the file's own test (tap.mjs).
//
// Each copy of a module is resolved and read as the first was: how its imports resolve and the
// JavaScript tsx made of it are kept from the first copy, so the next files skip the other hooks.

const TAG = 'test-file';
let root;
let tap;
const resolutions = new Map();
const sources = new Map();

export function initialize(data) {
  root = data.root;
  tap = data.tap;
}

const tagOf = (url) => (url?.startsWith('file:') ? new URL(url).searchParams.get(TAG) : null);
const untagged = (url) => {
  const plain = new URL(url);
  plain.searchParams.delete(TAG);
  return plain.href;
};
const ofProject = (url) => url.startsWith(root) && !url.includes('/node_modules/');
// What tests write for themselves (t.testdir, in .tap/) can change between two files: read each time.
const kept = (url) => ofProject(url) && !url.startsWith(`${root}.tap/`);

export async function resolve(specifier, context, next) {
  const tag = tagOf(context.parentURL);
  if (!tag) return next(specifier, context);
  if (specifier === 'tap') return { url: `${tap}?${TAG}=${tag}`, format: 'module', shortCircuit: true };
  const key = `${untagged(context.parentURL)}\n${specifier}\n${JSON.stringify(context.importAttributes ?? {})}`;
  let resolved = resolutions.get(key);
  if (!resolved) {
    resolved = await next(specifier, context);
    if (kept(context.parentURL)) resolutions.set(key, resolved);
  }
  if (!ofProject(resolved.url)) return { ...resolved, shortCircuit: true };
  const url = new URL(resolved.url);
  url.searchParams.set(TAG, tag);
  return { ...resolved, url: url.href, shortCircuit: true };
}

export async function load(url, context, next) {
  if (!tagOf(url) || !kept(url)) return next(url, context);
  const key = untagged(url);
  let loaded = sources.get(key);
  if (!loaded) {
    const { format, source } = await next(url, context);
    loaded = { format, source: typeof source === 'string' || source == null ? source : new TextDecoder().decode(source) };
    sources.set(key, loaded);
  }
  return { ...loaded, shortCircuit: true };
}
