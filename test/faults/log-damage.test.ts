import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CorruptLogError } from '../../src/events/file-log/errors.ts';
import { openFileEventStore } from '../../src/events/file-log/store.ts';
import { silentLogger } from '../events/helpers.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'attest-damage-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const segments = async () => (await readdir(dir)).filter((name) => name.endsWith('.segment')).sort();

async function writeNotes(count: number, options: { maxSegmentBytes?: number } = {}): Promise<void> {
  const store = await openFileEventStore({ dir, log: silentLogger, ...options });
  for (let i = 0; i < count; i++) await store.appendToStream('notes', [{ id: randomUUID(), type: 'Noted', data: { i, text: 'x'.repeat(200) } }]);
  await store.close();
}

describe('damage to acknowledged data is never mistaken for a torn tail', () => {
  it('a bit flipped in the last, already-synced batch stops the start with the file and offset; nothing is cut', async () => {
    await writeNotes(10);
    const [segment] = await segments();
    const path = join(dir, segment!);
    const bytes = await readFile(path);
    const size = bytes.length;
    bytes[size - 20]! ^= 0x01;
    await writeFile(path, bytes);
    const opening = openFileEventStore({ dir, log: silentLogger });
    await expect(opening).rejects.toBeInstanceOf(CorruptLogError);
    await expect(openFileEventStore({ dir, log: silentLogger })).rejects.toThrow(new RegExp(`${segment}.*offset \\d+.*not a torn tail`));
    expect((await stat(path)).size).toBe(size);
  });

  it('a deleted segment (the only one) is refused, never started over empty', async () => {
    await writeNotes(3);
    for (const name of await segments()) await unlink(join(dir, name));
    await expect(openFileEventStore({ dir, log: silentLogger })).rejects.toThrow(/no segment file is left, but 3 events were acknowledged/);
  });

  it('a deleted last segment is refused: the log would end before what was acknowledged', async () => {
    await writeNotes(60, { maxSegmentBytes: 4096 });
    const names = await segments();
    expect(names.length).toBeGreaterThan(2);
    await unlink(join(dir, names.at(-1)!));
    await expect(openFileEventStore({ dir, log: silentLogger })).rejects.toThrow(/events were acknowledged durable .*missing/);
  });

  it('a deleted segment in the middle is refused, naming the gap', async () => {
    await writeNotes(60, { maxSegmentBytes: 4096 });
    const names = await segments();
    await unlink(join(dir, names[1]!));
    await expect(openFileEventStore({ dir, log: silentLogger })).rejects.toThrow(/a segment is missing or misnamed/);
  });
});
