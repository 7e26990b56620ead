import type { CommandResult } from '../../../kernel/operation.ts';
import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { extractInvoiceFromText } from '../invoice-extract/engine.ts';
import { INVOICE_EXTRACT_RULESET } from '../invoice-extract/vocabulary.ts';
import { utilityReceipt } from '../utility-receipt.ts';
import type { FileKind } from './file-kind.ts';
import { INVOICE_OCR_ID } from './vocabulary.ts';

/** What was read from the upload, and how. */
export interface Reading {
  kind: FileKind;
  method: 'ocr' | 'pdf-text-layer';
  text: string;
  /** Tesseract's mean confidence (0-100) for OCR; null for a text layer, which is read, not recognised. */
  confidence: number | null;
  width: number | null;
  height: number | null;
  pages: number | null;
  /** What did the reading, with its versions (and for OCR the trained data's SHA-256). */
  engine: JsonObject;
  /** Why the engine could not read the file at all, when it could not (then `text` is empty). */
  unreadable?: string;
}

export interface UploadFacts {
  bytes: Uint8Array;
  declared_media_type: string | null;
  filename: string | null;
}

/**
 * The receipt of one invoice read from a file: the text (beside the record, bound by its digest),
 * how it was read, and the invoice-extract engine's EN 16931 fields from that text. A PDF without
 * a text layer is NO-TEXT-LAYER: it is not rasterised and guessed at. A file the engine could not
 * decode at all (found only by trying, after the payment) is UNREADABLE, with the engine's reason.
 */
export function invoiceOcrReceipt(upload: UploadFacts, reading: Reading, now: number): CommandResult {
  const source = { kind: reading.kind, bytes: upload.bytes.byteLength, declared_media_type: upload.declared_media_type, width: reading.width, height: reading.height, pages: reading.pages };
  const common = { source, method: reading.method, engine: reading.engine, mean_confidence: reading.confidence, evidence_source: 'caller-supplied' };
  const findings: JsonObject = reading.unreadable
    ? { ...common, outcome: 'UNREADABLE', reason: reading.unreadable, extraction: null }
    : reading.text.trim() === ''
      ? {
          ...common,
          outcome: reading.method === 'pdf-text-layer' ? 'NO-TEXT-LAYER' : 'NO-TEXT',
          reason: reading.method === 'pdf-text-layer' ? 'the PDF has no text layer (a scan?): send the page as a PNG, JPEG or TIFF image to have it recognised' : 'no text was recognised in the image',
          extraction: null,
        }
      : { ...common, ...extraction(reading.text) };
  return utilityReceipt({
    utility: INVOICE_OCR_ID,
    now,
    input: upload.bytes,
    output: { content: reading.text, mediaType: 'text/plain; charset=utf-8' },
    ruleset: { id: 'invoice-ocr', version: '1', extraction: { ...INVOICE_EXTRACT_RULESET } },
    findings: {
      ...findings,
      limitations: [
        'OCR reads English text with the shipped trained data; other scripts are not recognised',
        'the fields come from the recognised text by the invoice-extract rules: a misread character can make a term NOT-PROVIDED or a check FAIL, never a guessed value',
      ],
    },
  });
}

function extraction(text: string): JsonObject {
  const { outcome, ...rest } = extractInvoiceFromText(text);
  return { outcome: outcome as JsonValue, extraction: rest };
}
