import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { IdTable } from '../../src/events/file-log/id-table.ts';
import { EMPTY_CHECKPOINT, PersistedIndex } from '../../src/events/file-log/lmdb-index.ts';
import { LogIndex } from '../../src/events/file-log/log-index.ts';

describe('IdTable: event id -> position of the last event with that id', () => {
  it('finds every id across growth, and nothing else', () => {
    const ids: string[] = [];
    const table = new IdTable((position) => ids[position]);
    for (let p = 0; p < 20_000; p++) {
      ids.push(`id-${p}`);
      table.set(ids[p]!, p);
    }
    for (let p = 0; p < 20_000; p++) expect(table.get(`id-${p}`)).toBe(p);
    expect(table.get('id-20000')).toBe(-1);
    expect(table.get('')).toBe(-1);
  });

  it('a repeated id points at its latest position', () => {
    const ids = ['a', 'b', 'a'];
    const table = new IdTable((position) => ids[position]);
    ids.forEach((id, p) => table.set(id, p));
    expect(table.get('a')).toBe(2);
    expect(table.get('b')).toBe(1);
  });

  it('finds no id that was never set, among many similar ones that were', () => {
    const ids = Array.from({ length: 3000 }, (_, i) => `x${i}`);
    const table = new IdTable((position) => ids[position]);
    ids.forEach((id, p) => table.set(id, p));
    for (let i = 3000; i < 6000; i++) expect(table.get(`x${i}`)).toBe(-1);
  });
});

describe('LogIndex id lookups', () => {
  it('revisionOfId finds an id in its stream only', () => {
    const index = new LogIndex();
    index.reserve('s1', [{ id: 'e1' }, { id: 'e2' }]);
    index.reserve('s2', [{ id: 'e3' }]);
    expect(index.mayHoldId('s1', 'e2')).toBe(true);
    expect(index.mayHoldId('s1', 'e4')).toBe(false);
    expect(index.revisionOfId('s1', 'e2')).toBe(1);
    expect(index.revisionOfId('s2', 'e2')).toBe(-1);
    expect(index.revisionOfId('s2', 'e3')).toBe(0);
    expect(index.nextPosition).toBe(3);
  });

  it('an id on disk is looked up in its stream, and only for a stream with events on disk: a stream wholly in the tail cannot hold it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'log-index-'));
    const persisted = PersistedIndex.open(dir, { readOnly: false })!;
    try {
      const index = new LogIndex(persisted, 0);
      index.reserve('old', [{ id: 'a' }]);
      index.locateAt(0, 0, 0, 64);
      await persisted.write(index.entriesUpTo(1), { ...EMPTY_CHECKPOINT, events: 1, offset: 64, lastId: 'a' });
      index.release(1);
      index.reserve('new', [{ id: 'b' }]);
      const onDisk = vi.spyOn(persisted, 'revisionOfId');

      expect(index.mayHoldId('new', 'a')).toBe(false);
      expect(index.mayHoldId('new', 'b')).toBe(true);
      expect(onDisk).not.toHaveBeenCalled();
      expect(index.mayHoldId('old', 'a')).toBe(true);
      expect(onDisk).toHaveBeenCalledOnce();
      // Found in its own stream only: a stream never written holds no id.
      expect(index.mayHoldId('never-written', 'a')).toBe(false);
      index.reserve('old', [{ id: 'c' }]);
      expect(index.mayHoldId('old', 'a')).toBe(true);
      expect(index.revisionOfId('old', 'a')).toBe(0);
      expect(index.mayHoldId('old', 'z')).toBe(false);
    } finally {
      await persisted.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
