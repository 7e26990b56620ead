import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryEventStore } from './memory-store.ts';
import { AppendTooLargeError, WrongExpectedRevisionError, type EventData } from './port.ts';
import { withStagedAppends } from './staged-store.ts';

const events = (...types: string[]): EventData[] => types.map((type) => ({ id: randomUUID(), type, data: { type } }));

describe('a store with its appends held back (measuring a command before the payment is settled)', () => {
  it('reads a stream as the store would after the appends, and leaves the store as it was', async () => {
    const store = createMemoryEventStore();
    await store.appendToStream('s', events('A', 'B'));
    const staged = withStagedAppends(store);
    const result = await staged.appendToStream('s', events('C', 'D'), { expectedRevision: 1n });
    expect(result.nextExpectedRevision).toBe(3n);
    expect((await staged.readStream('s')).map((e) => [e.type, e.revision])).toEqual([['A', 0n], ['B', 1n], ['C', 2n], ['D', 3n]]);
    expect((await staged.readStream('s', { direction: 'backwards', maxCount: 3 })).map((e) => e.type)).toEqual(['D', 'C', 'B']);
    expect((await staged.readStream('s', { fromRevision: 1n, maxCount: 2 })).map((e) => e.type)).toEqual(['B', 'C']);
    expect((await staged.readStream('s', { direction: 'backwards', fromRevision: 2n })).map((e) => e.type)).toEqual(['C', 'B', 'A']);
    expect(staged.stagedEvents).toBe(2);

    expect((await store.readStream('s')).map((e) => e.type)).toEqual(['A', 'B']);
    const all = [];
    for await (const event of store.readAll()) all.push(event.type);
    expect(all).toEqual(['A', 'B']);
  });

  it('checks expected revisions against the store and what was staged, on new streams too', async () => {
    const store = createMemoryEventStore();
    await store.appendToStream('s', events('A'));
    const staged = withStagedAppends(store);
    await expect(staged.appendToStream('s', events('B'), { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    await staged.appendToStream('new', events('N'), { expectedRevision: 'no_stream' });
    await expect(staged.appendToStream('new', events('M'), { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    await staged.appendToStream('new', events('M'), { expectedRevision: 0n });
    expect((await staged.readStream('new')).map((e) => e.type)).toEqual(['N', 'M']);
    expect(await store.readStream('new')).toEqual([]);
  });

  it("refuses an append over the store's limit, as the store would", async () => {
    const staged = withStagedAppends(createMemoryEventStore({ appendLimitBytes: 100 }));
    expect(staged.appendLimitBytes).toBe(100);
    await expect(staged.appendToStream('s', [{ id: randomUUID(), type: 'Big', data: { text: 'x'.repeat(200) } }])).rejects.toBeInstanceOf(AppendTooLargeError);
    expect(staged.stagedEvents).toBe(0);
  });
});
