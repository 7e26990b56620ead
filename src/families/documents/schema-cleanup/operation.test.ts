import { describe, expect, it } from 'vitest';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson, runAgainst } from '../../../../test/support/http.ts';
import { changeOneOutputByte, verifyUtilityAnswer, type UtilityAnswer } from '../utils-verify/verify-client.ts';
import { MAX_TRAILING_COMMAS } from './operation.ts';

const service = useTestService();
const PATH = '/v1/utils/schema-cleanup';
const input = { input: '\uFEFFName;Birth Date;Amount\n"Smith; J";25/12/1990;"12,50"\n' };

describe('schema cleanup over HTTP', () => {
  it('quotes with 402; an unknown format or an empty input is 422 naming the field', async () => {
    expect((await postJson(`${service.url}${PATH}`, input)).status).toBe(402);
    expect(await postJson(`${service.url}${PATH}`, { ...input, format: 'xml' })).toMatchObject({ status: 422, body: { issues: [{ path: 'format' }] } });
    expect(await postJson(`${service.url}${PATH}`, { input: '' })).toMatchObject({ status: 422, body: { issues: [{ path: 'input' }] } });
  });

  it('refuses JSON nested deeper than 32 levels before the quote, free (cleaning it overflowed the stack after payment), and quotes 32', async () => {
    const deep = (levels: number) => '[{"a":'.repeat(levels) + '1' + '}]'.repeat(levels);
    expect(await postJson(`${service.url}${PATH}`, { input: deep(8_000) })).toMatchObject({ status: 422, body: { error: 'too_deeply_nested', outcome: 'INVALID-INPUT', issues: [{ path: 'input', message: 'the JSON nests 16000 levels deep; at most 32 are cleaned' }] } });
    // jsonrepair strips each trailing comma by copying its whole output: 50,000 took 15 s after the caller paid.
    const trailing = '[' + "{a:'b',},".repeat(MAX_TRAILING_COMMAS + 1) + ']';
    expect(await postJson(`${service.url}${PATH}`, { input: trailing, format: 'json' })).toMatchObject({ status: 422, body: { error: 'too_many_repairs', issues: [{ path: 'input', message: `the JSON has ${MAX_TRAILING_COMMAS + 2} trailing commas; at most ${MAX_TRAILING_COMMAS} are repaired` }] } });
    expect((await postJson(`${service.url}${PATH}`, { input: '[' + "{a:'b',},".repeat(100) + ']', format: 'json' })).status).toBe(402);
    expect((await postJson(`${service.url}${PATH}`, { input: deep(16), format: 'json' })).status).toBe(402);
    // As CSV the same text is not nested at all.
    expect((await postJson(`${service.url}${PATH}`, { input: deep(8_000), format: 'csv' })).status).toBe(402);
  });

  it('signs the receipt; the verify route accepts it with its output; a changed output byte or member fails', async () => {
    const result = await runAgainst(service, 'utils.schema-cleanup', input);
    const answer = result.body as unknown as UtilityAnswer;
    expect(answer.utility_result).toMatchObject({ outcome: 'CLEANED', delimiter: ';' });
    expect(await verifyUtilityAnswer(service.url, answer)).toMatchObject({ valid: true, checks: { output_sha256: true } });
    expect((await verifyUtilityAnswer(service.url, { ...answer, output: changeOneOutputByte(answer.output!, 'utf-8') })).valid).toBe(false);
    expect((await verifyUtilityAnswer(service.url, { ...answer, servedAt: answer.servedAt - 1 })).valid).toBe(false);
  });
});
