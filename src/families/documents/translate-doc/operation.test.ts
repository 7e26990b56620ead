import { describe, expect, it } from 'vitest';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson, runAgainst } from '../../../../test/support/http.ts';
import { changeOneOutputByte, verifyUtilityAnswer, type UtilityAnswer } from '../utils-verify/verify-client.ts';

const service = useTestService();
const PATH = '/v1/utils/translate-doc';
const input = { text: 'Thank you for your order. See you.', source_lang: 'en', target_lang: 'fr', memory: [{ source: 'Thank you for your order.', target: 'Merci pour votre commande.' }] };

describe('document translation over HTTP', () => {
  it('quotes with 402; a bad language tag or a conflicting memory is 422 before the quote', async () => {
    expect((await postJson(`${service.url}${PATH}`, input)).status).toBe(402);
    expect(await postJson(`${service.url}${PATH}`, { ...input, target_lang: 'french!' })).toMatchObject({ status: 422, body: { issues: [{ path: 'target_lang' }] } });
    const conflicting = { ...input, memory: [...input.memory, { source: 'Thank you for your order. ', target: 'Merci.' }] };
    expect(await postJson(`${service.url}${PATH}`, conflicting)).toMatchObject({ status: 422, body: { error: 'memory_conflict', issues: [{ path: 'memory.1.target' }] } });
  });

  it('refuses a glossary giving two targets for one term with 422, naming the later entry, before the quote', async () => {
    const glossary = [{ source: 'order', target: 'commande' }, { source: 'see', target: 'voir' }, { source: 'order', target: 'ordre' }];
    const refused = await postJson(`${service.url}${PATH}`, { ...input, glossary });
    expect(refused.status).toBe(422);
    expect(refused.headers.get('payment-required')).toBeNull();
    const reason = 'entries 0 and 2 give different targets for the same source';
    expect(refused.body).toMatchObject({ error: 'glossary_conflict', message: `glossary: ${reason}`, outcome: 'INVALID-INPUT', issues: [{ path: 'glossary.2.target', message: reason }] });
    expect(refused.body.issues).toHaveLength(1);
  });

  it('signs the receipt; the verify route accepts it with its output; a changed output byte or member fails', async () => {
    const result = await runAgainst(service, 'utils.translate-doc', input);
    const answer = result.body as unknown as UtilityAnswer;
    expect(answer.output).toBe('Merci pour votre commande. See you.');
    expect(answer.utility_result).toMatchObject({ outcome: 'PARTIAL', segment_counts: { 'TM-EXACT': 1, 'NOT-TRANSLATED': 1 } });
    expect(await verifyUtilityAnswer(service.url, answer)).toMatchObject({ valid: true, checks: { output_sha256: true } });
    expect((await verifyUtilityAnswer(service.url, { ...answer, output: changeOneOutputByte(answer.output!, 'utf-8') })).valid).toBe(false);
    expect((await verifyUtilityAnswer(service.url, { ...answer, kind: 'other' })).valid).toBe(false);
  });
});
