/**
 * One statement for the calls that need the same one at once (docs/decisions.md, "The MCP
 * server"): a group commit. Every call of a tool reads its company's budget before it runs
 * and adds its tokens after; under load, several calls of one company do so at once. Each
 * call joins the waiting batch of its key. A key has at most one run in flight: its waiting
 * batch starts when the turn's I/O is done (setImmediate) and no run of that key is in
 * flight, or else in the turn after that run settles, once for all that joined it, and
 * every one of them is answered its outcome. So under load a batch holds the calls that
 * arrived during one statement's round trip, not only those of one turn. A batch starts
 * after each of its calls joined it, so a read sees everything written before any of them
 * arrived, and an addition adds each call's value once: no guarantee rests on this node, nor
 * on one call at a time.
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
