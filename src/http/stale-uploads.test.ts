import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeStaleUploads } from './stale-uploads.ts';

const HOUR = 3_600_000;

describe('uploads left by a process that was killed', () => {
  let temp: string;
  const now = Date.now();
  beforeEach(() => {
    temp = mkdtempSync(join(tmpdir(), 'stale-uploads-test-'));
  });
  afterEach(() => rmSync(temp, { recursive: true, force: true }));

  /** An upload directory with one file, both last written `ageMs` ago (the file `fileAgeMs` ago). */
  function upload(name: string, ageMs: number, fileAgeMs = ageMs): string {
    const dir = join(temp, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'file'), 'a caller document');
    utimesSync(join(dir, 'file'), (now - fileAgeMs) / 1000, (now - fileAgeMs) / 1000);
    utimesSync(dir, (now - ageMs) / 1000, (now - ageMs) / 1000);
    return dir;
  }

  it('are removed once nothing has written to them for longer than a request can run; those of live requests stay', async () => {
    const stale = upload('attest-upload-killed', 2 * HOUR);
    const live = upload('attest-upload-live', 1_000);
    const stillWriting = upload('attest-upload-long-file', 2 * HOUR, 1_000);
    const foreign = upload('something-else', 2 * HOUR);

    await expect(removeStaleUploads(HOUR, now, temp)).resolves.toBe(1);
    expect(existsSync(stale)).toBe(false);
    for (const kept of [live, stillWriting, foreign]) expect(existsSync(join(kept, 'file'))).toBe(true);
  });

  it('never follows a link named like an upload directory', async () => {
    const target = upload('not-an-upload', 2 * HOUR);
    symlinkSync(target, join(temp, 'attest-upload-link'));
    await expect(removeStaleUploads(HOUR, now, temp)).resolves.toBe(0);
    expect(existsSync(join(target, 'file'))).toBe(true);
  });

  it('finds nothing to do in a temp directory that is not there', async () => {
    await expect(removeStaleUploads(HOUR, now, join(temp, 'missing'))).resolves.toBe(0);
  });
});
