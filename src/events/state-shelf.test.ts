import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateShelf } from './state-shelf.ts';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
/** A logger that keeps the fields of each warning and error. */
function recordingLog() {
  const warnings: Array<Record<string, unknown>> = [];
  const errors: Array<Record<string, unknown>> = [];
  const log = { info: () => {}, warn: (fields: Record<string, unknown>) => void warnings.push(fields), error: (fields: Record<string, unknown>) => void errors.push(fields) };
  return { log, warnings, errors };
}
async function shelfDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'state-shelf-'));
  dirs.push(dir);
  return join(dir, 'states');
}

describe('the file log state shelf', () => {
  it('keeps each name its last text across a reopen, in files named by the name hashed, and forgets a dropped one', async () => {
    const dir = await shelfDir();
    const shelf = await openStateShelf(dir);
    const name = 'spend-governor\nagent-0xabc/../../etc';
    await shelf.put(name, 'first');
    await shelf.put(name, 'second');
    await shelf.put('other', 'kept');
    expect(await shelf.get(name)).toBe('second');
    const files = await readdir(dir);
    expect(files).toHaveLength(2);
    expect(files.every((file) => /^[0-9a-f]{64}\.state$/.test(file))).toBe(true);

    const reopened = await openStateShelf(dir);
    expect(await reopened.get(name)).toBe('second');
    await reopened.drop(name);
    expect(await reopened.get(name)).toBeUndefined();
    expect(await (await openStateShelf(dir)).get('other')).toBe('kept');
    expect(await readdir(dir)).toHaveLength(1);
  });

  it('removes at open the temporary files of puts a crash interrupted, and answers nothing for a name never put', async () => {
    const dir = await shelfDir();
    await openStateShelf(dir);
    await writeFile(join(dir, `${'ab'.repeat(32)}.state.4242.1.tmp`), 'half a snap');
    const shelf = await openStateShelf(dir);
    expect(await readdir(dir)).toEqual([]);
    expect(await shelf.get('never')).toBeUndefined();
  });

  it('answers undefined for a file removed behind its back', async () => {
    const dir = await shelfDir();
    const shelf = await openStateShelf(dir);
    await shelf.put('gone', 'text');
    for (const file of await readdir(dir)) await rm(join(dir, file));
    expect(await shelf.get('gone')).toBeUndefined();
  });
});

describe('the file log state shelf, failing', () => {
  it('says once that it cannot write, goes on failing quietly, and says it again after a put that worked', async () => {
    const dir = await shelfDir();
    const { log, warnings } = recordingLog();
    const shelf = await openStateShelf(dir, log);
    // The directory gone behind its back: every write fails, as on a disk that went away.
    await rm(dir, { recursive: true });
    await expect(shelf.put('a', 'text')).rejects.toThrow(/ENOENT/);
    await expect(shelf.put('b', 'text')).rejects.toThrow(/ENOENT/);
    expect(warnings).toEqual([expect.objectContaining({ dir, error: expect.stringContaining('ENOENT') })]);

    await mkdir(dir);
    await shelf.put('c', 'text');
    expect(await shelf.get('c')).toBe('text');
    await rm(dir, { recursive: true });
    await expect(shelf.put('d', 'text')).rejects.toThrow(/ENOENT/);
    expect(warnings).toHaveLength(2);
  });
});

describe('the file log state shelf, closed', () => {
  it('waits for the puts under way, then refuses more', async () => {
    const dir = await shelfDir();
    const shelf = await openStateShelf(dir);
    const put = shelf.put('name', 'x'.repeat(1 << 20));
    await shelf.close();
    expect(await readdir(dir)).toHaveLength(1);
    await put;
    await expect(shelf.put('late', 'text')).rejects.toThrow(/closed/);
    expect(await readdir(dir)).toHaveLength(1);
  });
});

describe('the file log state shelf, told of a codec that failed', () => {
  it('logs it as an error, with the snapshot it could not make, every time', async () => {
    const dir = await shelfDir();
    const { log, errors, warnings } = recordingLog();
    const shelf = await openStateShelf(dir, log);
    shelf.encodeFailed!('memory-store\nmem-1', new Error('a piece that is not JSON'));
    shelf.encodeFailed!('memory-store\nmem-1', new Error('a piece that is not JSON'));
    expect(errors).toEqual([
      { dir, snapshot: 'memory-store\nmem-1', error: 'a piece that is not JSON' },
      { dir, snapshot: 'memory-store\nmem-1', error: 'a piece that is not JSON' },
    ]);
    expect(warnings).toEqual([]);
    expect(await readdir(dir)).toEqual([]);
  });
});
