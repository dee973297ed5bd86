import { setFlagsFromString } from 'node:v8';

/**
 * The V8 heap policy of a serving process (docs/decisions.md, "Allocation-site pretenuring"),
 * imported first by the entry that listens, so it holds before any request's code runs.
 *
 * V8 allocates an object straight into the old generation when most objects of the place in
 * the code that makes it have survived a young collection (allocation-site pretenuring). A
 * request's objects live for milliseconds, but the places that make a query's rows are shared
 * by every query; once they were judged long-lived, every row of every later request went to
 * the old generation, kept the young strings it points to alive through the young collections
 * (promoting them too), and waited there for a full collection. Measured on PostgreSQL,
 * with pretenuring and without: a young collection promoted 1.37 MB of the 12.5 MB allocated
 * since the one before, and 28 KB; it took 2.7 ms, and 0.6; a page of printouts over HTTP
 * cost 157 µs of CPU, and 126; the peak RSS was 273 MiB, and 220. The server keeps no large
 * structure that grows object by object, which is what pretenuring speeds up.
 */
setFlagsFromString('--no-allocation-site-pretenuring');
