// What `import t from 'tap'` gives a test file that shares a process (hooks.mjs): the test
// worker.mjs made for that file, so its tests, teardowns and timeout are the file's own, as
// the root test is in a process of its own. Test files import tap's default export only; a
// named import fails here at once rather than reach the process's root test.

const tag = new URL(import.meta.url).searchParams.get('test-file');
const t = globalThis[Symbol.for('booking-api.test-of-file')]?.get(tag);
if (!t) throw new Error(`no test for test file ${tag}: test/shared-process/worker.mjs imports test files`);

export default t;
