import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openFileEventStore } from '../../src/events/file-log/store.ts';
import { silentLogger } from './helpers.ts';

/**
 * readStream reads a stream's neighbouring records together (segment-reader.ts readEvents). Any
 * mix of streams, sizes, gaps and segment ends must give back each stream's events exactly, in
 * every direction and window.
 */
describe('file log: reading a stream whose records lie near and far apart', () => {
  it('gives back each stream exactly, forwards, backwards, from a revision and up to a count', async () => {
    const appends = fc.array(
      fc.record({ stream: fc.constantFrom('a', 'b', 'c'), sizes: fc.array(fc.constantFrom(0, 10, 300, 5_000, 20_000, 70_000), { minLength: 1, maxLength: 4 }) }),
      { minLength: 1, maxLength: 30 },
    );
    await fc.assert(
      fc.asyncProperty(appends, fc.nat(), fc.nat(), async (plan, fromSeed, countSeed) => {
        const dir = await mkdtemp(join(tmpdir(), 'read-stream-'));
        // Small segments, so that runs of one stream cross from one file to the next.
        const store = await openFileEventStore({ dir, log: silentLogger, maxSegmentBytes: 256 * 1024 });
        try {
          const written = new Map<string, string[]>();
          for (const { stream, sizes } of plan) {
            const values = sizes.map((size, i) => `${stream}${written.get(stream)?.length ?? 0}-${i}:${'x'.repeat(size)}`);
            await store.appendToStream(stream, values.map((value) => ({ id: randomUUID(), type: 'T', data: { value } })));
            written.set(stream, [...(written.get(stream) ?? []), ...values]);
          }
          for (const [stream, values] of written) {
            const read = async (options: Parameters<typeof store.readStream>[1]) => (await store.readStream(stream, options)).map((e) => (e.data as { value: string }).value);
            const from = fromSeed % values.length;
            const count = 1 + (countSeed % values.length);
            expect(await read({})).toEqual(values);
            expect(await read({ direction: 'backwards' })).toEqual([...values].reverse());
            expect(await read({ fromRevision: BigInt(from), maxCount: count })).toEqual(values.slice(from, from + count));
            expect(await read({ direction: 'backwards', fromRevision: BigInt(from), maxCount: count })).toEqual(values.slice(Math.max(0, from - count + 1), from + 1).reverse());
            const revisions = (await store.readStream(stream)).map((e) => e.revision);
            expect(revisions).toEqual(values.map((_, i) => BigInt(i)));
          }
        } finally {
          await store.close();
          await rm(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 25 },
    );
  }, 60_000);
});
