import { describe, expect, it } from 'vitest';
import { findOperation } from '../../../catalog/index.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson, runAgainst } from '../../../../test/support/http.ts';
import { changeOneOutputByte, verifyUtilityAnswer, type UtilityAnswer } from '../utils-verify/verify-client.ts';

const service = useTestService();
const PATH = '/v1/sec-extract';
const input = findOperation('sec-extract')!.example as { document: string };

describe('SEC filing extraction over HTTP', () => {
  it('quotes with 402; an unknown form type or an empty document is 422 naming the field', async () => {
    expect((await postJson(`${service.url}${PATH}`, input)).status).toBe(402);
    expect(await postJson(`${service.url}${PATH}`, { ...input, form_type: 'S-1' })).toMatchObject({ status: 422, body: { issues: [{ path: 'form_type' }] } });
    expect(await postJson(`${service.url}${PATH}`, { document: '' })).toMatchObject({ status: 422, body: { issues: [{ path: 'document' }] } });
    // 200,000 nested elements held the event loop for 7 s after payment: refused before the quote, free.
    expect(await postJson(`${service.url}${PATH}`, { document: '<div>'.repeat(200_000) })).toMatchObject({ status: 422, body: { error: 'too_deeply_nested', issues: [{ path: 'document', message: 'the document opens 200000 elements inside each other; at most 10000 are read' }] } });
    // Each fact holds the text of the facts inside it: 9,000 nested took 1.7 GB.
    const facts = '<ix:nonNumeric name="x">a'.repeat(9_000) + '</ix:nonNumeric>'.repeat(9_000);
    expect(await postJson(`${service.url}${PATH}`, { document: facts })).toMatchObject({ status: 422, body: { error: 'too_deeply_nested', issues: [{ path: 'document', message: 'the document opens 9000 inline XBRL facts (ix:nonNumeric, ix:nonFraction) inside each other; at most 16 are read' }] } });
  });

  it('signs the receipt; the verify route accepts it with its output; a changed output byte or member fails', async () => {
    const result = await runAgainst(service, 'sec-extract', input);
    const answer = result.body as unknown as UtilityAnswer;
    expect(answer.utility_result).toMatchObject({ outcome: 'EXTRACTED', form_type: '10-K', cover: { registrant: { value: 'Example Corp' } } });
    expect(await verifyUtilityAnswer(service.url, answer)).toMatchObject({ valid: true, checks: { output_sha256: true } });
    expect((await verifyUtilityAnswer(service.url, { ...answer, output: changeOneOutputByte(answer.output!, 'utf-8') })).valid).toBe(false);
    expect((await verifyUtilityAnswer(service.url, { ...answer, utility: 'utils.sec-extract' })).valid).toBe(false);
  });
});
