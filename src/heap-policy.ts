import { setFlagsFromString } from 'node:v8';

/**
 * The V8 heap policy of a serving process (docs/decisions.md, "Allocation-site pretenuring"
 * and "Heap growth"), imported first by the entry that listens, so it holds before any
 * request's code runs.
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

/**
 * The old generation grows to 1.5 times what a full collection left live before the next
 * (docs/decisions.md, "Heap growth"). On a machine with memory to spare V8 lets it grow to up
 * to four times, and what a node holds live (some 40 MB) then came back as a peak RSS of
 * 240–300 MiB that was almost all garbage. What reaches the old generation of a serving
 * process is little (the young collections take a request's objects), so the extra full
 * collections are cheap: side by side, a tool call and an HTTP read cost the same CPU, and
 * the peak fell by some 40 MiB.
 */
setFlagsFromString('--heap-growing-percent=50');
