import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkSignedRecord } from '../../../kernel/signed-record.ts';
import { utilityRecord } from '../../../kernel/route-kit/records.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { createPayingFetch } from '../../../../test/support/paying-client.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { changeOneOutputByte, verifyUtilityAnswer, type UtilityAnswer } from '../utils-verify/verify-client.ts';
import { renderPdf } from '../doc-convert/pdf-render.ts';
import { convertDocument } from '../doc-convert/engine.ts';
import { invoicePng, pngWithImageData } from './invoice-image.test-support.ts';

const service = useTestService();
const pay = createPayingFetch();
const URL_PATH = '/v1/invoice-ocr';
type Answer = UtilityAnswer & { utility_result: { outcome: string; method: string; mean_confidence: number | null; extraction: { invoice: Record<string, unknown> } | null; engine: Record<string, string> } };

const form = (bytes: Uint8Array, type: string, name: string) => {
  const body = new FormData();
  body.set('file', new Blob([bytes], { type }), name);
  return body;
};
const paid = async (bytes: Uint8Array, type = 'image/png', name = 'invoice.png') => {
  const res = await pay(`${service.url}${URL_PATH}`, { method: 'POST', body: form(bytes, type, name) });
  expect(res.status).toBe(200);
  return (await res.json()) as Answer;
};

describe('invoice OCR over HTTP', () => {
  it('reads an invoice image rendered at test time: number, date and total, with the trained data named by its SHA-256; the same image gives the same bytes', async () => {
    const png = invoicePng();
    const first = await paid(png);
    expect(first.utility_result.method).toBe('ocr');
    expect(first.utility_result.extraction!.invoice).toMatchObject({ invoice_number: 'INV-2026-0042', issue_date: '2026-03-04', grand_total: '24.00', currency: 'EUR' });
    expect(first.utility_result.mean_confidence).toBeGreaterThan(60);
    expect(first.utility_result.engine['trained_data_sha256']).toMatch(/^[0-9a-f]{64}$/);
    expect(await verifyUtilityAnswer(service.url, first)).toMatchObject({ valid: true, checks: { output_sha256: true } });
    expect((await verifyUtilityAnswer(service.url, { ...first, output: changeOneOutputByte(first.output!, 'utf-8') })).valid).toBe(false);
    const { publicKey } = (await (await fetch(`${service.url}/v1/utils/public-key`)).json()) as { publicKey: string };
    const record = utilityRecord({ kind: first.kind, utility: first.utility, servedAt: first.servedAt, utility_result: first.utility_result as unknown as JsonValue });
    expect(checkSignedRecord(record, first.sha256, first.ed25519Sig, publicKey).valid).toBe(true);
    expect(createHash('sha256').update(first.output!, 'utf8').digest('hex')).toBe((first.utility_result as unknown as { output_sha256: string }).output_sha256);
    const second = await paid(png);
    expect(second.output).toBe(first.output);
    expect(second.utility_result).toEqual(first.utility_result);
  }, 60_000);

  it('reads a PDF from its text layer, without OCR', async () => {
    const { blocks, title } = convertDocument({ text: 'Invoice No: INV-7\n\nInvoice date: 2026-01-15\n\nTotal: USD 99.50\n', from: 'text', to: 'pdf' });
    const answer = await paid(await renderPdf(blocks, title), 'application/pdf', 'invoice.pdf');
    expect(answer.utility_result.method).toBe('pdf-text-layer');
    expect(answer.utility_result.extraction!.invoice).toMatchObject({ invoice_number: 'INV-7', issue_date: '2026-01-15', grand_total: '99.50' });
  }, 60_000);

  it('refuses, before any quote, a file that is not an image or a PDF (422) and an image beyond the pixel limit (413)', async () => {
    const text = await fetch(`${service.url}${URL_PATH}`, { method: 'POST', body: form(new TextEncoder().encode('just text'), 'image/png', 'fake.png') });
    expect(text.status).toBe(422);
    expect(await text.json()).toMatchObject({ error: 'unsupported_file' });
    const huge = await fetch(`${service.url}${URL_PATH}`, { method: 'POST', body: form(invoicePng(['x'], 9000, 5000), 'image/png', 'huge.png') });
    expect(huge.status).toBe(413);
    const quote = await fetch(`${service.url}${URL_PATH}`, { method: 'POST', body: form(invoicePng(), 'image/png', 'invoice.png') });
    expect(quote.status).toBe(402);
  }, 60_000);

  it('refuses, before any quote, a damaged or truncated PNG and a PDF that cannot be opened, saying why (422, nothing charged)', async () => {
    const png = invoicePng();
    const damaged = Buffer.from(png);
    damaged[png.length >> 1] = damaged[png.length >> 1]! ^ 0x40;
    const encrypted = await encryptedPdf();
    for (const [bytes, type, why] of [
      [damaged, 'image/png', /CRC of its IDAT chunk .* does not match/],
      [png.subarray(0, png.length - 100), 'image/png', /truncated/],
      [encrypted, 'application/pdf', /encrypted with a password/],
      [Buffer.from('%PDF-1.7\nnot really a PDF'), 'application/pdf', /the PDF cannot be opened/],
    ] as const) {
      const res = await fetch(`${service.url}${URL_PATH}`, { method: 'POST', body: form(bytes, type, 'invoice') });
      expect(res.status).toBe(422);
      expect(res.headers.get('payment-required')).toBeNull();
      expect(await res.json()).toMatchObject({ error: 'unsupported_file', outcome: 'INVALID-INPUT', message: expect.stringMatching(why) });
    }
  }, 60_000);

  it('signs an UNREADABLE receipt for an image only the decoder finds broken, and goes on reading the next', async () => {
    const broken = await paid(pngWithImageData(invoicePng(), Buffer.alloc(64, 0xab)));
    expect(broken.utility_result).toMatchObject({ outcome: 'UNREADABLE', reason: expect.stringMatching(/could not decode the image/), extraction: null, mean_confidence: null });
    expect(await verifyUtilityAnswer(service.url, broken)).toMatchObject({ valid: true });
    const next = await paid(invoicePng());
    expect(next.utility_result.outcome).not.toBe('UNREADABLE');
    expect(next.utility_result.extraction!.invoice).toMatchObject({ invoice_number: 'INV-2026-0042' });
  }, 60_000);
});

/** A one-page PDF with a text layer, encrypted with a user password (pdfkit's RC4/AES encryption). */
async function encryptedPdf(): Promise<Buffer> {
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({ userPassword: 'secret', pdfVersion: '1.7' });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => doc.on('end', resolve));
  doc.text('Invoice No: INV-9');
  doc.end();
  await ended;
  return Buffer.concat(chunks);
}
