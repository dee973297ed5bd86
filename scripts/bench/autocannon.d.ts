// The part of autocannon 9's programmatic API the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
  }
  interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    timeout?: number;
    sampleInt?: number;
    requests?: Request[];
    excludeErrorStats?: boolean;
  }
  interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  }
  interface Instance extends EventEmitter, PromiseLike<Result> {
    stop(): void;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
}
