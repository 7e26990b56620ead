import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileAtomically, replaceFileAtomically } from '../src/atomic-file.ts';

// The key files and the data manifest are written through these: what a reader finds is whole.
describe('atomic files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'atomic-file-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a file with its text and mode, and leaves no temporary file', () => {
    const path = join(dir, 'key.json');
    expect(createFileAtomically(path, '{"k":1}', 0o600)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('{"k":1}');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['key.json']);
  });

  it('never replaces a file another process created first: false, theirs kept', () => {
    const path = join(dir, 'key.json');
    writeFileSync(path, 'theirs');
    expect(createFileAtomically(path, 'mine', 0o600)).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('theirs');
    expect(readdirSync(dir)).toEqual(['key.json']);
  });

  it('replaces a file whole, and leaves no temporary file', () => {
    const path = join(dir, 'manifest.json');
    writeFileSync(path, 'old');
    replaceFileAtomically(path, 'new', 0o644);
    expect(readFileSync(path, 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['manifest.json']);
  });

  it('leaves no temporary file when the write fails', () => {
    expect(() => replaceFileAtomically(join(dir, 'missing', 'file.json'), 'x', 0o644)).toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });
});
