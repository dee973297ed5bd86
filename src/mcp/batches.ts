/**
 * One statement for the calls that need the same one at once (docs/decisions.md, "The MCP
 * server"): a group commit. Every call of a tool reads its company's budget before it runs
 * and adds its tokens after; under load, several calls of one company do so in the same
 * turn of the event loop. Each call joins the batch of its key; the batch runs when the
 * turn's I/O is done (setImmediate), once for all that joined it, and every one of them is
 * answered its outcome. A batch starts after each of its calls joined it, so a read sees
 * everything written before any of them arrived, and an addition adds each call's value once:
 * no guarantee rests on this node, nor on one call at a time.
 */
export function batched<K, V, R>(run: (key: K, values: V[]) => Promise<R>): (key: K, value: V) => Promise<R> {
  type Batch = { values: V[]; resolve: Array<(result: R) => void>; reject: Array<(err: unknown) => void> };
  let waiting = new Map<K, Batch>();
  let scheduled = false;

  const flush = () => {
    const batches = waiting;
    waiting = new Map();
    scheduled = false;
    for (const [key, batch] of batches) {
      let started: Promise<R>;
      try {
        started = run(key, batch.values);
      } catch (err) {
        started = Promise.reject(err);
      }
      started.then(
        (result) => batch.resolve.forEach((resolve) => resolve(result)),
        (err: unknown) => batch.reject.forEach((reject) => reject(err)),
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
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
