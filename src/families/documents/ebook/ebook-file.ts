import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { link, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Settings } from '../../../config.ts';
import { runOnEngineThread } from '../../../kernel/engine-threads/pool.ts';
import { UnavailableNowError } from '../../../kernel/unavailable.ts';
import { moduleBeside } from '../../../kernel/worker-script.ts';

export interface Ebook {
  title: string;
  path: string;
  bytes: number;
  sha256: string;
  pages: number;
  /** Where it came from: the operator's file, or the handbook generated from the documentation. */
  source: 'operator' | 'handbook';
  samplePages: number;
}

/** `forNow`: the failure is of the moment (the handbook's render stopped at the engine's time limit), not of the file. */
export type EbookState = { ok: true; ebook: Ebook } | { ok: false; reason: string; forNow?: true };

/** The SHA-256 of a file, read as a stream: a large ebook is never held in memory. */
async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Written beside, then linked into place: a reader never sees a half-written handbook. */
async function writeFileOnce(path: string, bytes: Buffer): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, bytes);
  try {
    await link(temporary, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await rm(temporary, { force: true });
  }
}

/** The file at `path`, made once by `make` when it is not there yet. */
export async function fileMadeOnce(path: string, make: () => Promise<Buffer>): Promise<string> {
  try {
    await stat(path);
  } catch {
    await mkdir(dirname(path), { recursive: true });
    await writeFileOnce(path, await make());
  }
  return path;
}

async function handbookPath(settings: EbookSettings): Promise<string> {
  // The Markdown parser and PDF writer load on an engine thread when the handbook is first asked for.
  const { handbookSource } = await import('./handbook.ts');
  const source = handbookSource();
  const render = async () => Buffer.from(await runOnEngineThread<Uint8Array>(settings, moduleBeside(import.meta.url, 'handbook'), 'renderHandbookPdf', [source.markdown]));
  return fileMadeOnce(join(settings.DATA_DIR, 'ebook', `handbook-${source.sha256.slice(0, 16)}.pdf`), render);
}

type EbookSettings = Pick<Settings, 'EBOOK_PATH' | 'DATA_DIR' | 'EBOOK_SAMPLE_PAGES' | 'ENGINE_THREADS' | 'ENGINE_QUEUE' | 'ENGINE_HEAP_MB' | 'ENGINE_JOB_TIMEOUT_MS'>;

/** Opens the PDF being sold: its size, SHA-256 and page count (pdf-lib), or why it cannot be sold. */
async function openEbook(settings: EbookSettings): Promise<EbookState> {
  const source = settings.EBOOK_PATH ? 'operator' : 'handbook';
  let path: string;
  try {
    path = settings.EBOOK_PATH ?? (await handbookPath(settings));
  } catch (err) {
    return { ok: false, reason: `the handbook could not be generated: ${(err as Error).message}`, ...(err instanceof UnavailableNowError ? { forNow: true as const } : {}) };
  }
  try {
    const { size } = await stat(path);
    // pdf-lib needs the document in memory once, on first use, to count its pages; serving streams it.
    const { PDFDocument } = await import('pdf-lib');
    const document = await PDFDocument.load(await readFile(path), { updateMetadata: false });
    const pages = document.getPageCount();
    const title = document.getTitle() ?? (source === 'handbook' ? 'The attestation service handbook' : 'Ebook');
    return { ok: true, ebook: { title, path, bytes: size, sha256: await fileSha256(path), pages, source, samplePages: Math.min(settings.EBOOK_SAMPLE_PAGES, pages) } };
  } catch (err) {
    return { ok: false, reason: `the ebook at ${source === 'operator' ? 'EBOOK_PATH' : 'the data directory'} is missing or not a readable PDF: ${(err as Error).message}` };
  }
}

const opened = new Map<string, Promise<EbookState>>();
/** Opened once per configuration and process. */
export function ebookOf(settings: EbookSettings): Promise<EbookState> {
  const key = `${settings.EBOOK_PATH ?? ''}\u0000${settings.DATA_DIR}\u0000${settings.EBOOK_SAMPLE_PAGES}`;
  let state = opened.get(key);
  if (!state) {
    state = openEbook(settings);
    opened.set(key, state);
    // Kept, a render stopped on a loaded machine would leave the ebook unsold until a restart.
    void state.then((s) => {
      if (!s.ok && s.forNow) opened.delete(key);
    });
  }
  return state;
}

/** The first pages as a PDF of their own, with fixed dates: the same ebook gives the same sample. */
export async function samplePdf(ebook: Ebook): Promise<Buffer> {
  // pdf-lib costs about 0.2 s to load: when a PDF is first read, not at every start.
  const { PDFDocument } = await import('pdf-lib');
  const whole = await PDFDocument.load(await readFile(ebook.path), { updateMetadata: false });
  const sample = await PDFDocument.create({ updateMetadata: false });
  const pages = await sample.copyPages(whole, Array.from({ length: ebook.samplePages }, (_, i) => i));
  for (const page of pages) sample.addPage(page);
  sample.setTitle(`${ebook.title} (sample: the first ${ebook.samplePages} pages)`);
  const fixed = new Date(Date.UTC(2000, 0, 1));
  sample.setCreationDate(fixed);
  sample.setModificationDate(fixed);
  return Buffer.from(await sample.save({ useObjectStreams: false }));
}
