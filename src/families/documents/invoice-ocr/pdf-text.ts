import { createRequire } from 'node:module';

const requireHere = createRequire(import.meta.url);
export const PDFJS_VERSION = (requireHere('pdfjs-dist/package.json') as { version: string }).version;

export interface PdfText {
  pages: number;
  /** The text layer, page after page; empty when the PDF has none (a scan). */
  text: string;
}

/** The text layer of a PDF, read with pdf.js (its legacy build, for Node): no rendering, no OCR. */
export async function readPdfText(bytes: Uint8Array): Promise<PdfText> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: bytes, useSystemFonts: false, isEvalSupported: false, disableFontFace: true }).promise;
  try {
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const content = await (await doc.getPage(n)).getTextContent();
      // Items that end a line carry hasEOL: join them as the page lays them out.
      pages.push(content.items.map((item) => ('str' in item ? `${item.str}${item.hasEOL ? '\n' : ''}` : '')).join(''));
    }
    return { pages: doc.numPages, text: pages.join('\n').trim() };
  } finally {
    await doc.destroy();
  }
}

/**
 * Why pdf.js cannot open this PDF (damaged, or encrypted with a password), or undefined when it
 * can: asked before the quote, so that nobody pays for a file that cannot be read. Opening reads
 * the cross-reference table and the catalogue only, not the pages.
 */
export async function pdfOpenProblem(bytes: Uint8Array): Promise<string | undefined> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  // pdf.js may detach the buffer it is given: a copy, so the caller's bytes stay readable.
  const task = pdfjs.getDocument({ data: new Uint8Array(bytes), useSystemFonts: false, isEvalSupported: false, disableFontFace: true, stopAtErrors: true });
  try {
    const doc = await task.promise;
    await doc.destroy();
    return undefined;
  } catch (err) {
    const name = (err as { name?: unknown }).name;
    return name === 'PasswordException' ? 'the PDF is encrypted with a password: send it unprotected' : `the PDF cannot be opened: ${(err as Error).message}`;
  } finally {
    await task.destroy();
  }
}
