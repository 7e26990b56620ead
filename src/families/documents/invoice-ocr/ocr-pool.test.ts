import { describe, expect, it } from 'vitest';
import { OcrPool, UnreadableImageError, type OcrWorker } from './ocr-pool.ts';

/** A stand-in worker whose readings the test settles one by one. */
class FakeWorker implements OcrWorker {
  static started = 0;
  readonly id = ++FakeWorker.started;
  terminated = false;
  private readonly pending: Array<{ resolve(text: string): void; reject(err: unknown): void }> = [];

  recognize(): Promise<{ data: { text: string; confidence: number } }> {
    return new Promise<string>((resolve, reject) => this.pending.push({ resolve, reject })).then((text) => ({ data: { text, confidence: 90 } }));
  }
  async terminate(): Promise<void> {
    this.terminated = true;
  }
  finish(text: string): void {
    this.pending.shift()!.resolve(text);
  }
  fail(message: string): void {
    this.pending.shift()!.reject(message); // tesseract.js rejects with the worker's message, a string
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

function poolOfOne(start: () => Promise<OcrWorker>) {
  return new OcrPool(1, 4, start);
}

/** A pool of one worker and the stand-ins it has started, in order. */
function poolOfFakes(): { pool: OcrPool; workers: FakeWorker[] } {
  const workers: FakeWorker[] = [];
  const pool = poolOfOne(async () => {
    const worker = new FakeWorker();
    workers.push(worker);
    return worker;
  });
  return { pool, workers };
}

describe('the OCR worker pool', () => {
  it('a worker whose reading failed for another reason than decoding is terminated, and the caller waiting gets a new one', async () => {
    const { pool, workers } = poolOfFakes();
    const first = pool.recognize(Buffer.from('a'));
    const second = pool.recognize(Buffer.from('b'));
    await settle();
    expect(workers).toHaveLength(1);
    workers[0]!.fail('RuntimeError: memory access out of bounds');
    await expect(first).rejects.toThrow('OCR failed: RuntimeError: memory access out of bounds');
    await settle();
    expect(workers[0]!.terminated).toBe(true);
    expect(workers).toHaveLength(2);
    workers[1]!.finish('INVOICE 42');
    await expect(second).resolves.toEqual({ text: 'INVOICE 42', confidence: 90 });
    expect(pool.saturated()).toBe(false);
    await pool.close();
  });

  it('a worker that could not decode an image is kept: the image was at fault, not the worker', async () => {
    const { pool, workers } = poolOfFakes();
    const damaged = pool.recognize(Buffer.from('a'));
    const next = pool.recognize(Buffer.from('b'));
    await settle();
    workers[0]!.fail('Error attempting to read image.');
    await expect(damaged).rejects.toBeInstanceOf(UnreadableImageError);
    await settle();
    workers[0]!.finish('TOTAL 10.00');
    await expect(next).resolves.toMatchObject({ text: 'TOTAL 10.00' });
    expect(workers).toHaveLength(1);
    expect(workers[0]!.terminated).toBe(false);
    await pool.close();
  });

  it('a worker that cannot start fails its caller and every caller waiting for the slot, not a hang', async () => {
    const pool = poolOfOne(() => Promise.reject(new Error('cannot start a thread')));
    const calls = [pool.recognize(Buffer.from('a')), pool.recognize(Buffer.from('b')), pool.recognize(Buffer.from('c'))];
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(pool.saturated()).toBe(false);
  });
});
