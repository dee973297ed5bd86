/**
 * A group commit (docs/decisions.md, "The MCP server"): the calls of one key that arrive while
 * a run of that key is in flight wait in one batch, which runs once for all of them after the
 * turn's I/O (setImmediate), each answered its outcome. A batch starts after each of its calls
 * joined it, so a read sees everything written before any of them arrived and an addition adds
 * each value once: no guarantee rests on this node, nor on one call at a time.
 */
export function batched<K, V, R>(run: (key: K, values: V[]) => Promise<R>): (key: K, value: V) => Promise<R> {
  type Batch = { values: V[]; resolve: Array<(result: R) => void>; reject: Array<(err: unknown) => void> };
  const waiting = new Map<K, Batch>();
  const inFlight = new Set<K>();
  let scheduled = false;

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };

  const settled = (key: K) => {
    inFlight.delete(key);
    if (waiting.has(key)) schedule();
  };

  const flush = () => {
    scheduled = false;
    for (const [key, batch] of waiting) {
      if (inFlight.has(key)) continue;
      waiting.delete(key);
      inFlight.add(key);
      let started: Promise<R>;
      try {
        started = run(key, batch.values);
      } catch (err) {
        started = Promise.reject(err);
      }
      started.then(
        (result) => {
          settled(key);
          batch.resolve.forEach((resolve) => resolve(result));
        },
        (err: unknown) => {
          settled(key);
          batch.reject.forEach((reject) => reject(err));
        },
      );
    }
  };

  return (key, value) =>
    new Promise<R>((resolve, reject) => {
      let batch = waiting.get(key);
      if (!batch) waiting.set(key, (batch = { values: [], resolve: [], reject: [] }));
      batch.values.push(value);
      batch.resolve.push(resolve);
      batch.reject.push(reject);
      if (!inFlight.has(key)) schedule();
    });
}
