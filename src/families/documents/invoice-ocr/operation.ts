import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { pricedOperation, type Command, type Refusal, type Route, type ServiceDeps } from '../../../kernel/operation.ts';
import { groupedDigits } from '../../../kernel/grouped-digits.ts';
import { utilityReceiptResponse } from '../utils-verify/receipt-schema.ts';
import type { Reading } from './engine.ts';
import { MAX_OCR_PIXELS, sniffUpload } from './file-kind.ts';
import { ocrEngine, ocrPool, UnreadableImageError } from './ocr-pool.ts';
import { pngChunkProblem } from './png-chunks.ts';
import { INVOICE_OCR_ID } from './vocabulary.ts';
import { PDFJS_VERSION, pdfOpenProblem, readPdfText } from './pdf-text.ts';

const uploadedFile = z
  .object({
    sha256: z.string(),
    size: z.number().int(),
    media_type: z.string().nullable(),
    filename: z.string().nullable(),
    path: z.string(),
  })
  .describe('The invoice: a PNG, JPEG, TIFF or PDF file, at most 10 MiB');

const input = z.object({ file: uploadedFile }).strict();
type OcrInput = z.infer<typeof input>;

const poolOf = (deps: ServiceDeps) => ocrPool(deps.settings.OCR_WORKERS, deps.settings.OCR_QUEUE);

/** Decided before any quote: a file that is not an image or PDF, an image too large, or no worker free soon. */
async function refuseEarly(i: OcrInput, deps: ServiceDeps): Promise<Refusal | undefined> {
  const sniffed = await sniffUpload(i.file.path);
  if (sniffed.kind === null) return unreadableFile(sniffed.reason);
  const damaged = sniffed.kind === 'png' ? pngChunkProblem(await readFile(i.file.path)) : sniffed.kind === 'pdf' ? await pdfOpenProblem(await readFile(i.file.path)) : undefined;
  if (damaged) return unreadableFile(damaged);
  if (sniffed.width !== null && sniffed.height !== null && sniffed.width * sniffed.height > MAX_OCR_PIXELS) {
    const message = `the image is ${sniffed.width} x ${sniffed.height} pixels, more than ${groupedDigits(MAX_OCR_PIXELS)}: scale it down`;
    return { status: 413, error: 'image_too_large', message, issues: [{ path: 'file', message }] };
  }
  if (sniffed.kind !== 'pdf' && poolOf(deps).saturated())
    return { status: 503, error: 'ocr_busy', message: 'every OCR worker is busy and the queue is full; nothing was charged, retry shortly', retryAfterSeconds: 2 };
  return undefined;
}

const unreadableFile = (reason: string): Refusal => ({ status: 422, error: 'unsupported_file', message: reason, outcome: 'INVALID-INPUT', issues: [{ path: 'file', message: reason }] });

const readInvoice: Command<OcrInput> = {
  async execute(i, ctx) {
    const bytes = await readFile(i.file.path);
    const sniffed = await sniffUpload(i.file.path);
    if (sniffed.kind === null) throw new Error(`the upload changed kind after its precheck: ${sniffed.reason}`);
    let reading: Reading;
    if (sniffed.kind === 'pdf') {
      const pdf = await readPdfText(new Uint8Array(bytes));
      reading = { kind: 'pdf', method: 'pdf-text-layer', text: pdf.text, confidence: null, width: null, height: null, pages: pdf.pages, engine: { name: 'pdfjs-dist', version: PDFJS_VERSION, reads: 'the text layer' } };
    } else {
      const image = { kind: sniffed.kind, method: 'ocr', confidence: null, width: sniffed.width, height: sniffed.height, pages: 1, engine: { ...ocrEngine() } } as const;
      try {
        const ocr = await poolOf(ctx).recognize(bytes);
        reading = { ...image, text: ocr.text, confidence: ocr.confidence };
      } catch (err) {
        if (!(err instanceof UnreadableImageError)) throw err;
        reading = { ...image, text: '', unreadable: err.message };
      }
    }
    // The invoice reader (and its XML parser) loads with the first invoice, not at every start.
    const { invoiceOcrReceipt } = await import('./engine.ts');
    return invoiceOcrReceipt({ bytes, declared_media_type: i.file.media_type, filename: i.file.filename }, reading, ctx.now);
  },
};

const findings = {
  outcome: z.enum(['EXTRACTED', 'INCOMPLETE', 'INCONSISTENT', 'NOT-AN-INVOICE', 'NO-TEXT-LAYER', 'NO-TEXT', 'UNREADABLE']),
  source: z.looseObject({ kind: z.enum(['png', 'jpeg', 'tiff', 'pdf']), bytes: z.number().int() }),
  method: z.enum(['ocr', 'pdf-text-layer']),
  engine: z.looseObject({ name: z.string(), version: z.string() }),
  mean_confidence: z.number().nullable(),
  extraction: z.looseObject({}).nullable(),
  evidence_source: z.literal('caller-supplied'),
  limitations: z.array(z.string()),
};

const invoiceOcr = pricedOperation({
  id: INVOICE_OCR_ID,
  method: 'POST',
  path: '/v1/invoice-ocr',
  family: 'documents',
  priceUsd: '0.02',
  summary: 'Invoice OCR from an uploaded file (multipart/form-data).',
  description: `Reads an invoice from a multipart/form-data upload (field \`file\`, at most 10 MiB): a PNG, JPEG or TIFF image is recognised with tesseract.js and the English trained data shipped in a registry package (no download, ever) on a bounded pool of worker threads; a PDF is read from its text layer (pdf.js), and one without a text layer is NO-TEXT-LAYER. The text then goes through the invoice-extract engine (EN 16931 terms, lines, calculation rules). The receipt records the mean confidence, the engine versions and the trained data's SHA-256; the text travels beside it. Images above ${groupedDigits(MAX_OCR_PIXELS)} pixels are 413, a truncated or damaged PNG and a PDF that cannot be opened (damaged, or encrypted with a password) are 422, and a full queue is 503 with Retry-After, all before the quote; an image only the decoder finds broken gives an UNREADABLE receipt.`,
  inputFrom: 'multipart',
  input,
  example: { file: { sha256: '0'.repeat(64), size: 0, media_type: 'image/png', filename: 'invoice.png', path: '(uploaded file)' } },
  output: utilityReceiptResponse(INVOICE_OCR_ID, findings),
  keyFamily: 'utils',
  signedMember: null,
  verifyPath: '/v1/utils/verify',
  outputBeside: true,
  precheckState: refuseEarly,
  command: readInvoice,
});

export const invoiceOcrRoutes: Route[] = [invoiceOcr];
