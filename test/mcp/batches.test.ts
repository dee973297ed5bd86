import t from 'tap';
import { batched } from '../../src/mcp/batches.js';

// The metering's group commit (src/mcp/batches.ts): calls that join a key in one turn of the
// event loop share one run with all their values, every one of them gets its outcome, and a
// call that joins after a run started waits for a run of its own. A key has one run in flight
// at a time: the calls that join meanwhile, over any number of turns, share the next.

const turn = () => new Promise((resolve) => setImmediate(resolve));

t.test('the calls of one turn share one run per key, with all their values', async (t) => {
  const runs: Array<[string, number[]]> = [];
  const add = batched(async (key: string, values: number[]) => {
    runs.push([key, values]);
    return values.reduce((sum, n) => sum + n, 0);
  });
  const answers = await Promise.all([add('a', 1), add('b', 10), add('a', 2), add('a', 3)]);
  t.strictSame(answers, [6, 10, 6, 6], 'each call gets its batch\'s outcome');
  t.strictSame(runs, [['a', [1, 2, 3]], ['b', [10]]]);
});

t.test('a call after a run started is in the next run, and sees what that run did', async (t) => {
  let total = 0;
  const started: number[][] = [];
  const add = batched(async (_key: string, values: number[]) => {
    started.push(values);
    await turn();
    total += values.reduce((sum, n) => sum + n, 0);
    return total;
  });
  const first = add('a', 1);
  await turn(); // the first run has started
  const second = add('a', 2);
  t.strictSame(await Promise.all([first, second]), [1, 3]);
  t.strictSame(started, [[1], [2]]);
});

t.test('while a key\'s run is in flight, the calls of later turns wait for it and share the next run; other keys do not wait', async (t) => {
  const started: Array<[string, number[]]> = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const add = batched(async (key: string, values: number[]) => {
    started.push([key, values]);
    if (key === 'a' && values[0] === 1) await gate;
    return values.length;
  });
  const first = add('a', 1);
  await turn(); // the first run of 'a' is in flight
  const second = add('a', 2);
  await turn();
  const third = add('a', 3);
  const other = add('b', 10);
  t.equal(await other, 1, 'another key runs while a is in flight');
  await turn();
  t.strictSame(started, [['a', [1]], ['b', [10]]], 'a\'s later calls wait for its run in flight');
  release();
  t.strictSame(await Promise.all([first, second, third]), [1, 2, 2]);
  t.strictSame(started, [['a', [1]], ['b', [10]], ['a', [2, 3]]], 'the calls of two turns share the next run');
});

t.test('a run that fails fails every call of its batch, and the next batch runs', async (t) => {
  let fail = true;
  const read = batched((_key: string, values: number[]) => {
    if (fail) throw new Error('the statement failed');
    return Promise.resolve(values.length);
  });
  const failing = await Promise.allSettled([read('a', 1), read('a', 2)]);
  t.strictSame(failing.map((r) => r.status), ['rejected', 'rejected']);
  t.match((failing[0] as PromiseRejectedResult).reason, { message: 'the statement failed' });
  fail = false;
  t.equal(await read('a', 3), 1);
});

t.test('a run whose promise rejects rejects each of its calls', async (t) => {
  const read = batched(async () => {
    throw new Error('no connection');
  });
  await t.rejects(read('a', undefined), { message: 'no connection' });
});
