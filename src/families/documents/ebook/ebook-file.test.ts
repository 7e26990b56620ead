import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PDFDocument } from 'pdf-lib';
import { loadSettings } from '../../../config.ts';
import { ebookOf } from './ebook-file.ts';
import { handbookSource } from './handbook.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the handbook when its render meets the engine time limit', () => {
  it('is unavailable with the reason, and tried again at the next request instead of being remembered', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ebook-file-test-'));
    dirs.push(dataDir);
    // A limit no render of the whole documentation meets: about 4 s built, more under tsx.
    const settings = loadSettings({ DATA_DIR: dataDir, ENGINE_JOB_TIMEOUT_MS: '100', LOG_LEVEL: 'silent' });
    const stopped = await ebookOf(settings);
    expect(stopped).toMatchObject({ ok: false, reason: expect.stringMatching(/^the handbook could not be generated: .*time limit, ENGINE_JOB_TIMEOUT_MS of 100 ms/) });

    // The handbook is there now (another process of the same data directory made it, say).
    const pdf = await PDFDocument.create();
    pdf.addPage();
    mkdirSync(join(dataDir, 'ebook'), { recursive: true });
    writeFileSync(join(dataDir, 'ebook', `handbook-${handbookSource().sha256.slice(0, 16)}.pdf`), await pdf.save());
    expect(await ebookOf(settings)).toMatchObject({ ok: true, ebook: { source: 'handbook', pages: 1 } });
  }, 20_000);
});
