import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { archiveKeyOf, LeaseArchive, MAX_ARCHIVED_REVISION, type ArchiveEntry } from './lease-archive.ts';
import { leaseIdFor } from './decider.ts';

const leaseId = (i: number) => leaseIdFor('agent-1', `payment-${i}`);
const entryOf = (i: number): ArchiveEntry => ({
  key: archiveKeyOf(leaseId(i)),
  decision: i % 3 === 0 ? { revision: i, refused: true } : i % 3 === 1 ? { revision: i, refused: false } : { revision: i, refused: false, settledRevision: i + 7 },
});
const runsOf = (archive: LeaseArchive) => (archive as unknown as { runs: Uint32Array[] }).runs;

describe('the lease archive', () => {
  it('finds every decision added, in whatever batches, and nothing else; its runs stay few', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 300 }), { maxLength: 12 }), (batches) => {
        let archive = LeaseArchive.empty();
        let next = 0;
        for (const size of batches) {
          archive = archive.with(Array.from({ length: size }, () => entryOf(next++)));
          expect(runsOf(archive).length).toBeLessThanOrEqual(1 + Math.log2(Math.max(1, archive.size)));
        }
        expect(archive.size).toBe(next);
        for (let i = 0; i < next; i++) expect(archive.find(leaseId(i))).toEqual(entryOf(i).decision);
        expect(archive.find(leaseId(next))).toBeUndefined();
      }),
      { numRuns: 60 },
    );
  });

  it('is immutable: adding makes a new archive and leaves the old one as it was', () => {
    const before = LeaseArchive.empty().with([entryOf(1), entryOf(2)]);
    const after = before.with([entryOf(3)]);
    expect(before.find(leaseId(3))).toBeUndefined();
    expect(after.find(leaseId(3))).toEqual(entryOf(3).decision);
    expect(before.size).toBe(2);
  });

  it('reads back from its bytes as it was written, a chunk at a time', () => {
    let archive = LeaseArchive.empty();
    for (let batch = 0; batch < 5; batch++) archive = archive.with(Array.from({ length: 37 }, (_, i) => entryOf(batch * 37 + i)));
    const chunks = [...archive.bytesInOrder(16)];
    expect(chunks.length).toBe(Math.ceil(185 / 16));
    expect(chunks.every((chunk) => chunk.length <= 16 * 16)).toBe(true);
    const readBack = LeaseArchive.ofBytes(chunks.map((chunk) => Buffer.from(chunk.toString('base64'), 'base64')));
    expect(Buffer.concat([...readBack.bytesInOrder(1000)])).toEqual(Buffer.concat(chunks));
    for (let i = 0; i < 185; i++) expect(readBack.find(leaseId(i))).toEqual(entryOf(i).decision);
  });

  it('refuses bytes that are not whole entries in key order, once each', () => {
    const bytes = Buffer.concat([...LeaseArchive.empty().with([entryOf(1), entryOf(2), entryOf(4)]).bytesInOrder(10)]);
    expect(() => LeaseArchive.ofBytes([bytes.subarray(0, 40)])).toThrow(/whole number/);
    expect(() => LeaseArchive.ofBytes([bytes.subarray(16, 32), bytes.subarray(0, 16)])).toThrow(/out of order/);
    expect(() => LeaseArchive.ofBytes([bytes.subarray(0, 16), bytes.subarray(0, 16)])).toThrow(/repeated/);
  });

  it('refuses a key archived twice, a revision it cannot hold, and a settlement before its lease', () => {
    const archive = LeaseArchive.empty().with([entryOf(1)]);
    expect(() => archive.with([entryOf(1)])).toThrow(/archived twice/);
    expect(() => LeaseArchive.empty().with([entryOf(2), entryOf(2)])).toThrow(/archived twice/);
    expect(() => archive.with([{ key: archiveKeyOf(leaseId(5)), decision: { revision: MAX_ARCHIVED_REVISION + 1, refused: false } }])).toThrow(/out of range/);
    expect(() => archive.with([{ key: archiveKeyOf(leaseId(5)), decision: { revision: 9, refused: false, settledRevision: 9 } }])).toThrow(/out of range/);
    expect(() => archiveKeyOf('agent-1:not-a-hash')).toThrow(/not a lease id/);
    expect(archive.size).toBe(1);
  });
});
