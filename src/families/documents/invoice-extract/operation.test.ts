import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson, runAgainst, tampers } from '../../../../test/support/http.ts';
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
