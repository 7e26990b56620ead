import { load, type LoadResult } from './load.ts';
import type { BenchServer } from './spawn-server.ts';

/** Beyond its own bound, how long a load may take before its server is presumed hung. */
const HANG_SECONDS = 15;

/** A server under paid load, and the index of the next unspent payment of the shared pool (each server has its own log). */
export interface PaidTarget {
  server: BenchServer;
  next: number;
}

export interface PaidCall {
  path: string;
  /** The body, or the body of the call that spends payment number n of the pool. */
  body: string | ((payment: number) => string);
  concurrency: number;
}

/** One bounded load on a server, spending the next unspent payments of the pool. */
export async function paidSlice(target: PaidTarget, call: PaidCall, payments: string[], bound: { requests: number; seconds: number }): Promise<LoadResult> {
  const from = target.next;
  const result = await bounded(
    load({
      url: target.server.url,
      method: 'POST',
      pathOf: () => call.path,
      bodyOf: (i) => (typeof call.body === 'string' ? call.body : call.body(from + i)),
      headersOf: (i) => ({ 'PAYMENT-SIGNATURE': payments[from + i]! }),
      concurrency: call.concurrency,
      maxRequests: Math.min(bound.requests, payments.length - from),
      maxSeconds: bound.seconds,
    }),
    bound.seconds + HANG_SECONDS,
    // A hung server: killing it fails the requests in flight, which ends the load.
    () => target.server.child.kill('SIGKILL'),
  );
  target.next += result.requests;
  return result;
}

/** `work`, or a rejection after `limitSeconds` (having called `onTimeout`). */
export async function bounded<T>(work: Promise<T>, limitSeconds: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`no end within ${limitSeconds} s`));
    }, limitSeconds * 1000);
  });
  work.catch(() => undefined); // its late failure, after a timeout, is already reported
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGTERM (the server closes its log and removes it), SIGKILL if it does not exit in time. */
export async function stopWithin(server: BenchServer, limitSeconds: number): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  await bounded(server.stop(), limitSeconds, () => server.child.kill('SIGKILL')).catch(() => undefined);
}
