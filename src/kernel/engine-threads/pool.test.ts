import { afterEach, describe, expect, it } from 'vitest';
import { DomainRefusal } from '../decider.ts';
import { moduleBeside } from '../worker-script.ts';
import { EngineOutOfMemoryError, EngineThreads, EngineTimeoutError } from './pool.ts';
import { canonicalBytes } from '../../signing/rfc8785.ts';
import { sha256Hex } from '../../signing/hash.ts';
import { resultOf } from './test-engines.test-support.ts';

const ENGINES = moduleBeside(import.meta.url, 'test-engines.test-support');
const pools: EngineThreads[] = [];
/**
 * The job time limit of these pools. It counts from when a job is given to its thread, so it
 * includes a new thread's start (about 0.6 s under tsx on a loaded 2-core machine): kept well
 * above it, so that only an engine that really runs past it is stopped.
 */
const JOB_LIMIT_MS = 4_000;
const pool = (threads = 1, queue = 4, heapMb = 64): EngineThreads => {
  const created = new EngineThreads({ threads, queue, heapMb, jobTimeoutMs: JOB_LIMIT_MS });
  pools.push(created);
  return created;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('engine threads', () => {
  it('runs an exported function of a module on a thread and answers its value, bytes included', async () => {
    const threads = pool();
    expect(await threads.run(ENGINES, 'sum', [2, 3])).toBe(5);
    const answer = await threads.run<{ text: string; bytes: Uint8Array }>(ENGINES, 'bytesOf', ['héllo']);
    expect(answer.text).toBe('héllo');
    expect(Buffer.from(answer.bytes).toString('utf8')).toBe('héllo');
  });

  it.each([
    ['a small record (its bytes first in the pool of small Buffers)', 0],
    ['a large one', 2_000],
  ])('answers a command result with the canonical bytes and SHA-256 of its record, made on the thread: %s', async (_, items) => {
    const threads = pool();
    const { value, canonical, recordText } = await threads.runForRecord<ReturnType<typeof resultOf>>(ENGINES, 'resultOf', [items]);
    // The record comes as its JSON text, in place of a clone of it.
    const { record, ...rest } = resultOf(items);
    expect(value).toEqual(rest);
    expect(Buffer.from(recordText.json).toString('utf8')).toBe(JSON.stringify(record));
    expect(recordText.keys).toEqual(Object.keys(record));
    expect(Buffer.from(canonical.bytes).equals(canonicalBytes(resultOf(items).record))).toBe(true);
    expect(canonical.sha256).toBe(sha256Hex(canonicalBytes(resultOf(items).record)));
    // Moved, not copied: the bytes arrive in a buffer of their own.
    expect(canonical.bytes.byteLength).toBe(canonical.bytes.buffer.byteLength);
  });

  it('refuses, as the engine\'s error, a value with no record to canonicalise; the thread serves the next call', async () => {
    const threads = pool();
    await expect(threads.runForRecord(ENGINES, 'noRecord', [])).rejects.toThrow(/noRecord answered no record to canonicalise/);
    expect(await threads.run(ENGINES, 'sum', [1, 1])).toBe(2);
  });

  it('keeps the event loop free while an engine computes', async () => {
    const threads = pool();
    let ticks = 0;
    const ticking = setInterval(() => ticks++, 10);
    try {
      await threads.run(ENGINES, 'sum', [0, 0]); // the thread and its module are loaded
      await threads.run(ENGINES, 'busyFor', [400]);
    } finally {
      clearInterval(ticking);
    }
    // Held on the main thread, the loop would have ticked once at most.
    expect(ticks).toBeGreaterThan(3);
  });

  it('gives back a DomainRefusal as one, with its status, error and outcome, and other errors by name and message', async () => {
    const threads = pool();
    const refused = await threads.run(ENGINES, 'refuse', []).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(DomainRefusal);
    expect((refused as DomainRefusal).asRefusal()).toEqual({ status: 422, error: 'too_many_rows', message: 'the table has too many rows', outcome: 'INVALID-INPUT' });
    await expect(threads.run(ENGINES, 'fail', [])).rejects.toMatchObject({ name: 'TypeError', message: 'the engine broke' });
    await expect(threads.run(ENGINES, 'noSuchEngine', [])).rejects.toThrow(/exports no function noSuchEngine/);
    // The thread survives its engines' errors.
    expect(await threads.run(ENGINES, 'sum', [1, 1])).toBe(2);
  });

  it('ends a thread whose engine outgrows its heap, answers EngineOutOfMemoryError, and serves the next call on a new thread', async () => {
    const threads = pool(1, 4, 32);
    const [exhausted, next] = await Promise.allSettled([threads.run(ENGINES, 'exhaustHeap', []), threads.run(ENGINES, 'sum', [40, 2])]);
    expect(exhausted.status).toBe('rejected');
    expect((exhausted as PromiseRejectedResult).reason).toBeInstanceOf(EngineOutOfMemoryError);
    expect((exhausted as PromiseRejectedResult).reason.message).toMatch(/more than the 32 MB heap/);
    expect(next).toEqual({ status: 'fulfilled', value: 42 });
  }, 60_000);

  it('runs a job that runs out of heap on a thread holding other jobs\' memory again on a fresh thread: the verdict follows the input, not the thread', async () => {
    const threads = pool(1, 4, 64);
    await threads.run(ENGINES, 'holdBallast', [40]);
    // Out of heap beside the ballast, within the heap on a thread of its own.
    expect(await threads.run(ENGINES, 'allocate', [40])).toBe(40);
    // Too much for any thread: refused after the fresh thread ran out too.
    await threads.run(ENGINES, 'holdBallast', [40]);
    await expect(threads.run(ENGINES, 'allocate', [400])).rejects.toBeInstanceOf(EngineOutOfMemoryError);
    expect(await threads.run(ENGINES, 'sum', [1, 2])).toBe(3);
  }, 60_000);

  it('ends a thread whose job runs past the time limit, answers EngineTimeoutError, and runs the job waiting behind it on a new thread', async () => {
    const threads = pool(1, 4);
    const first = await threads.run<number>(ENGINES, 'threadAfter', [0]);
    const [stopped, next] = await Promise.allSettled([threads.run(ENGINES, 'spinForever', []), threads.run<number>(ENGINES, 'threadAfter', [0])]);
    expect(stopped.status).toBe('rejected');
    expect((stopped as PromiseRejectedResult).reason).toBeInstanceOf(EngineTimeoutError);
    expect((stopped as PromiseRejectedResult).reason.message).toMatch(new RegExp(`past the ${JOB_LIMIT_MS} ms time limit`));
    expect(next.status).toBe('fulfilled');
    expect((next as PromiseFulfilledResult<number>).value).not.toBe(first);
    // The pool is whole again: one thread, free, that serves the next call.
    expect(threads.saturated()).toBe(false);
    expect(await threads.run(ENGINES, 'sum', [40, 2])).toBe(42);
  }, 20_000);

  it('times each job on its own: jobs under the limit run to their end, however long the thread has been busy', async () => {
    const threads = pool(1, 4);
    const thread = await threads.run<number>(ENGINES, 'threadAfter', [0]);
    // Three jobs of 1.5 s, one after the other: 4.5 s of one thread, past the 4 s limit together.
    const ran = await Promise.all([1, 2, 3].map(() => threads.run<number>(ENGINES, 'threadAfter', [1_500])));
    expect(ran).toEqual([thread, thread, thread]);
  }, 20_000);

  it('is saturated when every thread is busy and the queue is full, and runs the queue in order', async () => {
    const threads = pool(1, 2);
    await threads.run(ENGINES, 'sum', [0, 0]);
    const order: number[] = [];
    const calls = [0, 1, 2].map((i) => threads.run(ENGINES, i === 0 ? 'busyFor' : 'sum', i === 0 ? [200] : [i, 0]).then(() => order.push(i)));
    expect(threads.saturated()).toBe(true);
    await Promise.all(calls);
    expect(order).toEqual([0, 1, 2]);
    expect(threads.saturated()).toBe(false);
  });

  it('runs as many calls at once as it has threads', async () => {
    const threads = pool(2, 4);
    const ids = await Promise.all([threads.run<number>(ENGINES, 'threadAfter', [300]), threads.run<number>(ENGINES, 'threadAfter', [300])]);
    expect(new Set(ids).size).toBe(2);
  });

  it('rejects the calls still waiting when it is closed', async () => {
    const threads = pool(1, 4);
    const running = threads.run(ENGINES, 'busyFor', [200]).catch((err: unknown) => err);
    const waiting = threads.run(ENGINES, 'sum', [1, 2]).catch((err: unknown) => err);
    await threads.close();
    expect(await running).toMatchObject({ message: 'the engine threads were closed' });
    expect(await waiting).toMatchObject({ message: 'the engine threads were closed' });
  });
});
