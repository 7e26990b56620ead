import { describe, expect, it } from 'vitest';
import { archiveKeyOf, LeaseArchive, MAX_ARCHIVED_REVISION, type ArchiveEntry } from './lease-archive.ts';
import { leaseIdFor } from './decider.ts';

const leaseId = (i: number) => leaseIdFor('agent-1', `payment-${i}`);
const entryOf = (i: number): ArchiveEntry => ({
  key: archiveKeyOf(leaseId(i)),
  decision: i % 3 === 0 ? { revision: i, refused: true } : i % 3 === 1 ? { revision: i, refused: false } : { revision: i, refused: false, settledRevision: i + 7 },
});

describe('the lease archive', () => {
  it('finds every decision added, in whatever batches, as it was: refused, settled, unsettled', () => {
    let archive = LeaseArchive.empty();
    for (let batch = 0; batch < 6; batch++) archive = archive.with(Array.from({ length: 50 }, (_, i) => entryOf(batch * 50 + i)));
    expect(archive.size).toBe(300);
    for (let i = 0; i < 300; i++) expect(archive.find(leaseId(i))).toEqual(entryOf(i).decision);
    expect(archive.find(leaseId(300))).toBeUndefined();
  });

  it('reads back from its bytes as it was written', () => {
    const archive = LeaseArchive.empty().with(Array.from({ length: 40 }, (_, i) => entryOf(i)));
    const readBack = LeaseArchive.ofBytes([...archive.bytesInOrder(16)]);
    for (let i = 0; i < 40; i++) expect(readBack.find(leaseId(i))).toEqual(entryOf(i).decision);
  });

  it('refuses a key archived twice, a revision it cannot hold, and a settlement before its lease', () => {
    const archive = LeaseArchive.empty().with([entryOf(1)]);
    expect(() => archive.with([entryOf(1)])).toThrow(/added twice/);
    expect(() => LeaseArchive.empty().with([entryOf(2), entryOf(2)])).toThrow(/added twice/);
    expect(() => archive.with([{ key: archiveKeyOf(leaseId(5)), decision: { revision: MAX_ARCHIVED_REVISION + 1, refused: false } }])).toThrow(/out of range/);
    expect(() => archive.with([{ key: archiveKeyOf(leaseId(5)), decision: { revision: 9, refused: false, settledRevision: 9 } }])).toThrow(/out of range/);
    expect(() => archiveKeyOf('agent-1:not-a-hash')).toThrow(/not a lease id/);
    expect(archive.size).toBe(1);
  });
});
