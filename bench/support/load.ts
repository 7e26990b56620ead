import { Agent, request } from 'node:http';

export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  statuses: Record<number, number>;
  /** Milliseconds from sending each request to the end of its answer, in completion order. */
  latenciesMs: number[];
}

/**
 * A closed-loop load generator over keep-alive connections on loopback: `concurrency` requests in
 * flight, stopping after `maxRequests` or `maxSeconds`, whichever comes first.
 */
export async function load(options: {
  url: string;
  method?: 'GET' | 'POST';
  /** Path (with query) of request i, so that every request can differ. */
  pathOf: (i: number) => string;
  bodyOf?: (i: number) => string;
  headersOf?: (i: number) => Record<string, string>;
  concurrency: number;
  maxRequests: number;
  maxSeconds: number;
}): Promise<LoadResult> {
  const target = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const statuses: Record<number, number> = {};
  const latenciesMs: number[] = [];
  let next = 0;
  let done = 0;
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(options.maxSeconds * 1e9));

  const one = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const body = options.bodyOf?.(i);
      const sent = process.hrtime.bigint();
      const req = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          method: options.method ?? 'GET',
          path: options.pathOf(i),
          headers: { ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}), ...options.headersOf?.(i) },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            statuses[res.statusCode ?? 0] = (statuses[res.statusCode ?? 0] ?? 0) + 1;
            latenciesMs.push(Number(process.hrtime.bigint() - sent) / 1e6);
            done++;
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  const worker = async () => {
    while (next < options.maxRequests && process.hrtime.bigint() < deadline) await one(next++);
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  agent.destroy();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { requests: done, seconds, perSecond: done / seconds, statuses, latenciesMs };
}

/** Runs `fn` repeatedly for about `seconds` (bounded by `maxIterations`) and returns calls per second. */
export function rate(fn: (i: number) => void, seconds: number, maxIterations = 5_000_000): number {
  return loopRate(fn, seconds, maxIterations).perSecond;
}

/**
 * The same loop, with this process's CPU time per call beside the calls per second: CPU time
 * leaves out the moments the machine gave the core to someone else.
 */
export function loopRate(fn: (i: number) => void, seconds: number, maxIterations = 5_000_000): { perSecond: number; cpuMicrosPerCall: number } {
  for (let i = 0; i < 200; i++) fn(i); // warm-up
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const deadline = started + BigInt(Math.round(seconds * 1e9));
  let i = 0;
  while (i < maxIterations && (i % 64 !== 0 || process.hrtime.bigint() < deadline)) fn(i++);
  const cpu = process.cpuUsage(cpuBefore);
  return { perSecond: i / (Number(process.hrtime.bigint() - started) / 1e9), cpuMicrosPerCall: (cpu.user + cpu.system) / i };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
