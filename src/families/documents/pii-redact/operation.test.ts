import { describe, expect, it } from 'vitest';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson, runAgainst } from '../../../../test/support/http.ts';
import { changeOneOutputByte, verifyUtilityAnswer, type UtilityAnswer } from '../utils-verify/verify-client.ts';

const service = useTestService();
const PATH = '/v1/utils/pii-redact';
const input = { text: 'Card 4111 1111 1111 1111, IBAN GB82 WEST 1234 5698 7654 32, mail a@b.io', mode: 'pseudonym', pseudonym_key: 'caller-secret-key-0123456789' };

describe('PII redaction over HTTP', () => {
  it('quotes with 402; a pseudonym without a key, a bad mode or an unknown phone region is 422 before the quote', async () => {
    expect((await postJson(`${service.url}${PATH}`, input)).status).toBe(402);
    expect(await postJson(`${service.url}${PATH}`, { text: 'x', mode: 'pseudonym' })).toMatchObject({ status: 422, body: { error: 'pseudonym_key_required', issues: [{ path: 'pseudonym_key' }] } });
    expect(await postJson(`${service.url}${PATH}`, { text: 'x', mode: 'hash' })).toMatchObject({ status: 422, body: { issues: [{ path: 'mode' }] } });
    expect(await postJson(`${service.url}${PATH}`, { text: 'x', phone_region: 'ZZ' })).toMatchObject({ status: 422, body: { error: 'unknown_phone_region' } });
  });

  it('signs the receipt without the key; the verify route accepts it with its output; a changed byte or member fails', async () => {
    const result = await runAgainst(service, 'utils.pii-redact', input);
    const answer = result.body as unknown as UtilityAnswer;
    expect(JSON.stringify(result.body)).not.toContain(input.pseudonym_key);
    expect(answer.output).toMatch(/^Card <CREDIT_CARD_[0-9a-f]{16}>, IBAN <IBAN_CODE_[0-9a-f]{16}>, mail <EMAIL_ADDRESS_[0-9a-f]{16}>$/);
    expect(await verifyUtilityAnswer(service.url, answer)).toMatchObject({ valid: true, checks: { output_sha256: true } });
    expect((await verifyUtilityAnswer(service.url, { ...answer, output: changeOneOutputByte(answer.output!, 'utf-8') })).valid).toBe(false);
    expect((await verifyUtilityAnswer(service.url, { ...answer, utility: 'utils.other' })).valid).toBe(false);
    expect((await verifyUtilityAnswer(service.url, { ...answer, utility_result: { ...(answer.utility_result as object), outcome: 'NOTHING-FOUND' } })).valid).toBe(false);
  });
});
