import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PaymentRequired } from '@x402/core/types';
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it, vi } from 'vitest';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson, runAgainst, tampers } from '../../../../test/support/http.ts';
import { fetchQuote, signPayment } from '../../../../test/support/x402-payments.ts';
import { changeOneOutputByte, verifyUtilityAnswer, type UtilityAnswer } from '../utils-verify/verify-client.ts';

const service = useTestService();
const PATH = '/v1/utils/invoice-extract';
const input = { text: 'Invoice No: INV-9\nInvoice date: 2026-03-04\nSeller: ACME Ltd\nBill to: Globex\nWidget 2 10.00 20.00\nSubtotal: 20.00\nVAT: 4.00\nTotal: EUR 24.00\n' };

describe('invoice extraction over HTTP', () => {
  it('quotes with 402; refuses a bad field, two sources or malformed XML with 422 before the quote', async () => {
    expect((await postJson(`${service.url}${PATH}`, input)).status).toBe(402);
    expect(await postJson(`${service.url}${PATH}`, { ...input, pdf: 'x' })).toMatchObject({ status: 422, body: { issues: [{ path: '(root)', message: expect.stringContaining('pdf') }] } });
    expect(await postJson(`${service.url}${PATH}`, { text: '' })).toMatchObject({ status: 422, body: { issues: [{ path: 'text' }] } });
    expect(await postJson(`${service.url}${PATH}`, { ...input, ubl_xml: '<Invoice/>' })).toMatchObject({ status: 422, body: { error: 'one_source_required' } });
    expect(await postJson(`${service.url}${PATH}`, { cii_xml: '<a><b></a>' })).toMatchObject({ status: 422, body: { error: 'xml_not_well_formed', issues: [{ path: 'cii_xml' }] } });
  });

  it('signs the receipt; GET /v1/utils/verify accepts it with its output, and every tamper or a changed output byte fails', async () => {
    const result = await runAgainst(service, 'utils.invoice-extract', input);
    const answer = result.body as unknown as UtilityAnswer;
    expect(answer.utility_result).toMatchObject({ outcome: 'INCOMPLETE', not_provided: ['due_date', 'seller_vat_id'] });
    expect(await verifyUtilityAnswer(service.url, answer)).toMatchObject({ valid: true, checks: { sha256: true, signature: true, output_sha256: true } });
    expect((await verifyUtilityAnswer(service.url, { ...answer, output: changeOneOutputByte(answer.output!, 'utf-8') })).valid).toBe(false);
    const { sha256, ed25519Sig } = result.seal;
    for (const t of tampers(result.record as Record<string, JsonValue>, sha256, ed25519Sig)) {
      const record = t.record as Record<string, JsonValue>;
      if (t.name === 'extra member') continue; // the verify route rebuilds the record from its named members only
      const tampered = { ...answer, kind: String(record['kind']), utility: String(record['utility']), servedAt: Number(record['servedAt']), utility_result: record['utility_result'], sha256: t.sha256, ed25519Sig: t.signature };
      expect((await verifyUtilityAnswer(service.url, tampered)).valid, t.name).toBe(false);
    }
  });
});

describe('an XML invoice paid for', () => {
  const xml = readFileSync(new URL('./fixtures/invoice.cii.xml', import.meta.url), 'utf8');

  /** The XML parses made while `call` runs. */
  async function parsesOf(call: () => Promise<unknown>): Promise<{ parses: number; answer: unknown }> {
    const parse = vi.spyOn(XMLParser.prototype, 'parse');
    try {
      const answer = await call();
      return { parses: parse.mock.calls.length, answer };
    } finally {
      parse.mockRestore();
    }
  }

  it('over HTTP is parsed once in the paid request: the command reads the document its precheck parsed', async () => {
    const body = JSON.stringify({ cii_xml: xml });
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
    const payment = await signPayment(await fetchQuote(`${service.url}${PATH}`, init));
    const { parses, answer } = await parsesOf(async () => {
      const res = await fetch(`${service.url}${PATH}`, { ...init, headers: { ...init.headers, 'payment-signature': payment.header } });
      return { status: res.status, body: await res.json() };
    });
    expect(answer).toMatchObject({ status: 200, body: { utility_result: { outcome: 'EXTRACTED', source_format: 'cii' } } });
    expect(parses).toBe(1);
  });

  it('over MCP is parsed once in the paid tool call too', async () => {
    const client = new Client({ name: 'invoice-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`)));
    try {
      const args = { cii_xml: xml };
      const quote = (await client.callTool({ name: 'utils_invoice-extract', arguments: args })).structuredContent as unknown as PaymentRequired;
      const payment = await signPayment(quote);
      const { parses, answer } = await parsesOf(() => client.callTool({ name: 'utils_invoice-extract', arguments: args, _meta: { 'x402/payment': payment.payload } }));
      expect(answer).toMatchObject({ structuredContent: { utility_result: { outcome: 'EXTRACTED' } } });
      expect(parses).toBe(1);
    } finally {
      await client.close();
    }
  });
});
