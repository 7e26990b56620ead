import { describe, expect, it } from 'vitest';
import { createPayingFetch } from '../../../../test/support/paying-client.ts';
import { postJson } from '../../../../test/support/http.ts';
import { postTo, useTestService } from '../../../../test/support/service.ts';
import { changeOneOutputByte, verifyUtilityAnswer, type UtilityAnswer } from '../utils-verify/verify-client.ts';

const service = useTestService();
const payer = createPayingFetch();
const PATH = '/v1/utils/doc-convert';
type Answer = UtilityAnswer & { utility_result: { output_sha256: string; output_encoding: 'utf-8' | 'base64'; output_media_type: string; word_count?: number; engines: Array<{ name: string }> } };
const paid = async (body: unknown) => {
  const res = await postTo(service, PATH, body, payer);
  expect(res.status).toBe(200);
  return (await res.json()) as Answer;
};

describe('doc-convert over HTTP', () => {
  it('refuses, before the quote and free, Markdown its parser would take minutes over; the same text as plain text is quoted', async () => {
    const lists = '- '.repeat(20_000) + 'x';
    expect(await postJson(`${service.url}${PATH}`, { text: lists, to: 'json' })).toMatchObject({ status: 422, body: { error: 'markdown_too_complex', outcome: 'INVALID-INPUT', issues: [{ path: 'text', message: expect.stringMatching(/^line 1 opens 20000 block quotes or list items/) }] } });
    expect(await postJson(`${service.url}${PATH}`, { text: '*a'.repeat(10_000), to: 'json' })).toMatchObject({ status: 422, body: { error: 'markdown_too_complex' } });
    expect((await postJson(`${service.url}${PATH}`, { text: lists, from: 'text', to: 'json' })).status).toBe(402);
  });

  it('quotes with 402 and refuses a missing or unknown target, or too long a text, with 422 naming the field', async () => {
    expect((await postJson(`${service.url}${PATH}`, { text: '# Hi', to: 'pdf' })).status).toBe(402);
    expect(await postJson(`${service.url}${PATH}`, { text: '# Hi' })).toMatchObject({ status: 422, body: { issues: [{ path: 'to' }] } });
    expect(await postJson(`${service.url}${PATH}`, { text: '# Hi', to: 'rtf' })).toMatchObject({ status: 422, body: { issues: [{ path: 'to' }] } });
    expect(await postJson(`${service.url}${PATH}`, { text: 'x'.repeat(100_001), to: 'words' })).toMatchObject({ status: 422, body: { issues: [{ path: 'text' }] } });
  });

  it('answers a DOCX whose bytes are the same for the same text, bound by the signed receipt; a changed byte fails the check', async () => {
    const body = { text: '# Minutes\n\n1. Budget approved\n2. Next meeting in May\n', to: 'docx' };
    const [first, second] = [await paid(body), await paid(body)];
    expect(first.utility_result).toMatchObject({ output_encoding: 'base64', output_media_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' });
    expect(second.output).toBe(first.output);
    expect(await verifyUtilityAnswer(service.url, first)).toMatchObject({ valid: true, checks: { output_sha256: true } });
    expect((await verifyUtilityAnswer(service.url, { ...first, output: changeOneOutputByte(first.output!, 'base64') })).valid).toBe(false);
  });

  it('counts words by Unicode rules and names the ICU version that segmented them', async () => {
    const answer = await paid({ text: 'Grüße aus Köln, 你好世界', from: 'text', to: 'words' });
    const words = JSON.parse(answer.output!) as { word_count: number };
    expect(answer.utility_result.word_count).toBe(words.word_count);
    expect(words.word_count).toBeGreaterThanOrEqual(4);
    expect(answer.utility_result.engines.map((e) => e.name)).toEqual(['Intl.Segmenter (ICU)']);
    expect(await verifyUtilityAnswer(service.url, answer)).toMatchObject({ valid: true });
  });
});

describe('doc-convert on its engine thread', () => {
  const small = useTestService({ ENGINE_HEAP_MB: '64' });

  it('refuses, 422 and free, an input that needs more than the thread heap, and converts the next on a new thread', async () => {
    const table = '|a|b|\n|-|-|\n' + '|1|2|\n'.repeat(16_000);
    const refused = await postTo(small, PATH, { text: table, to: 'json' }, payer);
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ error: 'input_too_complex', outcome: 'INVALID-INPUT', message: expect.stringMatching(/needs more than the 64 MB heap of an engine thread \(ENGINE_HEAP_MB\)/) });
    expect(refused.headers.get('payment-response')).toBeNull();
    const converted = await postTo(small, PATH, { text: '# Still here\n\nConverted.', to: 'words' }, payer);
    expect(converted.status).toBe(200);
  }, 60_000);
});
