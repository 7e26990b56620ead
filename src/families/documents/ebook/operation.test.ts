import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wrapFetchWithPayment } from '@x402/fetch';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSignedRecord } from '../../../kernel/signed-record.ts';
import { createPayingClient } from '../../../../test/support/paying-client.ts';
import { verifyBody } from '../../../../test/support/http.ts';
import { startTestService, TEST_SECRET, useTestService, type TestService } from '../../../../test/support/service.ts';
import { createKeyring } from '../../../signing/keyring.ts';
import { seal } from '../../../signing/seal.ts';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

type Card = { title: string; pages: number; bytes: number; sha256: string; price_usd: string; sample_pages: number; source: string };

describe('the ebook: the service\'s own handbook by default', () => {
  const service = useTestService();

  it('has a product card for a handbook generated from the documentation, a sample of its first pages, and a quote at 29.00', async () => {
    const card = (await (await fetch(`${service.url}/api/ebook`)).json()) as Card;
    expect(card).toMatchObject({ source: 'handbook', price_usd: '29.00', sample_pages: 10 });
    expect(card.pages).toBeGreaterThan(30);
    const sample = await fetch(`${service.url}/api/ebook/sample`);
    expect(sample.headers.get('content-type')).toBe('application/pdf');
    const sampleDoc = await PDFDocument.load(new Uint8Array(await sample.arrayBuffer()));
    expect(sampleDoc.getPageCount()).toBe(10);
    const quote = await fetch(`${service.url}/api/ebook/download`);
    expect(quote.status).toBe(402);
    const required = JSON.parse(Buffer.from(quote.headers.get('payment-required')!, 'base64').toString('utf8')) as { accepts: Array<{ amount: string }> };
    expect(required.accepts[0]!.amount).toBe('29000000');
  }, 120_000);
});

describe('the ebook: an operator\'s PDF, bought with the official x402 client', () => {
  let service: TestService;
  let dir: string;
  let path: string;
  let fileSha256: string;
  const FILE_BYTES = 40 * 1024 * 1024;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ebook-test-'));
    path = join(dir, 'book.pdf');
    const doc = await PDFDocument.create({ updateMetadata: false });
    for (let i = 0; i < 12; i++) doc.addPage([300, 300]).drawText(`Page ${i + 1}`, { x: 50, y: 150 });
    // Incompressible bytes make a large file: memory must not grow by its size while it is served.
    await doc.attach(randomBytes(FILE_BYTES), 'appendix.bin', { mimeType: 'application/octet-stream' });
    const bytes = await doc.save();
    writeFileSync(path, bytes);
    fileSha256 = createHash('sha256').update(bytes).digest('hex');
    service = await startTestService({ EBOOK_PATH: path, EBOOK_SAMPLE_PAGES: '3' });
    await fetch(`${service.url}/api/ebook`); // opened once at first use, before anything is measured
  }, 120_000);
  afterAll(async () => {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('streams the paid PDF: the bytes\' SHA-256 is the ETag and the card\'s, the signed receipt checks, memory does not grow by the file\'s size, and a replay streams it again for nothing more', async () => {
    let paymentHeader: string | undefined;
    const recording: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      paymentHeader = request.headers.get('payment-signature') ?? paymentHeader;
      return fetch(request);
    };
    const account = privateKeyToAccount(generatePrivateKey());
    const pay = wrapFetchWithPayment(recording, createPayingClient(account));

    const before = process.memoryUsage().arrayBuffers;
    const res = await pay(`${service.url}/api/ebook/download`);
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const hash = createHash('sha256');
    const first = await reader.read();
    hash.update(first.value!);
    let received = first.value!.byteLength;
    // The reader pauses: a server that read the file into memory would now hold all of it; a stream holds what backpressure allows.
    await new Promise((r) => setTimeout(r, 300));
    const heldWhilePaused = process.memoryUsage().arrayBuffers - before;
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      hash.update(chunk.value);
      received += chunk.value.byteLength;
    }
    expect(received).toBe((await (await fetch(`${service.url}/api/ebook`)).json() as Card).bytes);
    expect(hash.digest('hex')).toBe(fileSha256);
    expect(res.headers.get('etag')).toBe(`"${fileSha256}"`);
    expect(heldWhilePaused).toBeLessThan(FILE_BYTES / 4);

    const receipt = JSON.parse(Buffer.from(res.headers.get('x-purchase-receipt')!, 'base64url').toString('utf8')) as { receipt: Record<string, unknown> & { product: { sha256: string } }; sha256: string; ed25519Sig: string };
    expect(receipt.receipt.product.sha256).toBe(fileSha256);
    const { publicKey } = (await (await fetch(`${service.url}/v1/utils/public-key`)).json()) as { publicKey: string };
    expect(checkSignedRecord(receipt.receipt as never, receipt.sha256, receipt.ed25519Sig, publicKey).valid).toBe(true);
    // And free, on the route the receipt names.
    const verifyUrl = (receipt as { verifyUrl?: string }).verifyUrl!;
    expect(verifyUrl).toBe(`${service.url}/api/ebook/receipt/recheck`);
    expect(await verifyBody(service, 'POST', '/api/ebook/receipt/recheck', receipt.receipt as never, receipt.sha256, receipt.ed25519Sig)).toMatchObject({ valid: true });

    const paidCalls = async () => ((await (await fetch(`${service.url}/v1/public/stats`)).json()) as { paidCalls: number }).paidCalls;
    const callsBefore = await paidCalls();
    const replay = await fetch(`${service.url}/api/ebook/download`, { headers: { 'PAYMENT-SIGNATURE': paymentHeader! } });
    expect(replay.status).toBe(200);
    expect(createHash('sha256').update(Buffer.from(await replay.arrayBuffer())).digest('hex')).toBe(fileSha256);
    expect(await paidCalls()).toBe(callsBefore);
  }, 180_000);
});

describe('the ebook receipt re-check', () => {
  const recheckService = useTestService();

  it('takes ebook purchase receipts only: another utility receipt, genuine under the same key, is not one', async () => {
    const keyring = createKeyring(TEST_SECRET);
    const other = { kind: 'utility-receipt', utility: 'utils.pii-redact', servedAt: 1_767_225_600, utility_result: { outcome: 'REDACTED' } };
    const s = seal(keyring, 'utils', other);
    expect(await verifyBody(recheckService, 'POST', '/api/ebook/receipt/recheck', other as never, s.sha256, s.ed25519Sig)).toMatchObject({ valid: false, reason: expect.stringContaining('expected ebook-purchase') });
    const receipt = { kind: 'ebook-purchase', product: { title: 't', sha256: '0'.repeat(64), bytes: 1, pages: 1 }, price_usd: '0.01', purchasedAt: 1_767_225_600 };
    const r = seal(keyring, 'utils', receipt);
    expect(await verifyBody(recheckService, 'POST', '/api/ebook/receipt/recheck', receipt as never, r.sha256, r.ed25519Sig)).toMatchObject({ valid: true });
  });
});
