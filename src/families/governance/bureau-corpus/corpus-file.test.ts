import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CorpusFile, type SavedEntry } from './corpus-file.ts';

const warnings: string[] = [];
const log = { info: () => {}, warn: (_fields: Record<string, unknown>, message: string) => void warnings.push(message), error: () => {} };
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'corpus-file-test-'));
  warnings.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const entry = (n: number): SavedEntry => ({ stream: `bureau-audit-${n}`, revision: 0n, leafHash: new Uint8Array(32).fill(n), defects: n % 2 ? ['X402-1'] : [] });

describe('the corpus file', () => {
  it('keeps the audits in log order and its checkpoint at their position when saves fail and are tried again', async () => {
    const { file } = await CorpusFile.open(dir, log);
    const entries = join(dir, 'bureau-corpus.entries');
    // Saves fail while the entries file cannot be opened for appending (a full disk, as far as they can tell).
    mkdirSync(entries);
    file.add(entry(1));
    file.advance(10n);
    const first = file.save();
    file.add(entry(2));
    file.advance(20n);
    const second = file.save();
    await Promise.all([first, second]);
    expect(warnings.length).toBeGreaterThan(0);
    rmSync(entries, { recursive: true });
    writeFileSync(entries, '');
    file.add(entry(3));
    file.advance(30n);
    await file.save();

    const { saved } = await CorpusFile.open(dir, log);
    expect(saved.entries).toEqual([entry(1), entry(2), entry(3)].map((e) => ({ ...e, leafHash: Buffer.from(e.leafHash) })));
    expect(saved.position).toBe(30n);
  });

  it('writes nothing for a save with nothing new', async () => {
    const { file } = await CorpusFile.open(dir, log);
    file.add(entry(1));
    file.advance(5n);
    await file.save();
    rmSync(dir, { recursive: true });
    // Nothing folded since: the save touches no file, so its directory stays gone.
    await file.save();
    expect(existsSync(dir)).toBe(false);
    expect(warnings).toEqual([]);
  });
});
