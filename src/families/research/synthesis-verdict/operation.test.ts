import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson, runAgainst, tampers, verifyBody } from '../../../../test/support/http.ts';
import { VERDICT_EXAMPLE } from './operation.ts';

const service = useTestService();
const path = '/v1/synthesis/verdict';
type Verdict = { evidenceCore: JsonObject & { verdict: string; blocks: Array<{ signature: { status: string } }> } };

describe('synthesis verdict over HTTP', () => {
  it('quotes with 402 and refuses a block without a stance with 422 naming the field', async () => {
    expect((await postJson(`${service.url}${path}`, VERDICT_EXAMPLE)).status).toBe(402);
    const bad = await postJson(`${service.url}${path}`, { question: 'q', blocks: [{ type: 'quant', content: 'x' }] });
    expect(bad).toMatchObject({ status: 422, body: { issues: [{ path: 'blocks.0.stance' }] } });
  });

  it('verifies external signatures, and our own signed results as blocks; the verdict re-checks on GET /v1/synthesis/verify', async () => {
    const finance = await runAgainst(service, 'finance.attested-evidence', { statement: { currency: 'USD', period_end: '2025-12-31', income_statement: { Revenues: '10', NetIncomeLoss: '2' }, balance_sheet: {}, cash_flow: {} } });
    const ours = { type: 'audit', stance: 'supports', content: 'the statement shows a 20% net margin', signed: { record: finance.record, sha256: finance.seal.sha256, ed25519Sig: finance.seal.ed25519Sig } };
    const result = await runAgainst(service, 'synthesis.verdict', { ...VERDICT_EXAMPLE, blocks: [...VERDICT_EXAMPLE.blocks, ours] });
    const core = (result.body as Verdict).evidenceCore;
    expect(core.blocks.map((b) => b.signature.status)).toEqual(['externally-signed', 'externally-signed', 'service-signed']);
    expect(core.verdict).toBe('SUPPORTED');
    const { sha256, ed25519Sig } = result.seal;
    expect((await verifyBody(service, 'GET', '/v1/synthesis/verify', result.record, sha256, ed25519Sig)).valid).toBe(true);
    // The same on POST with a JSON body, for records too large for a URL.
    expect((await verifyBody(service, 'POST', '/v1/synthesis/verify', result.record, sha256, ed25519Sig)).valid).toBe(true);
    expect((await verifyBody(service, 'POST', '/v1/synthesis/verify', { ...result.record, verdict: 'REFUTED' }, sha256, ed25519Sig)).valid).toBe(false);
    for (const t of tampers(result.record as Record<string, JsonValue>, sha256, ed25519Sig))
      expect((await verifyBody(service, 'GET', '/v1/synthesis/verify', t.record, t.sha256, t.signature)).valid, t.name).toBe(false);
  });

  it('a block whose signed record was changed gets weight 0 and is listed; one block alone is INSUFFICIENT-DATA', async () => {
    const [first, second] = VERDICT_EXAMPLE.blocks as unknown as [JsonObject & { signed: { record: JsonObject } }, JsonObject & { signed: { record: JsonObject } }];
    const changed = { ...second, signed: { ...second.signed, record: { ...second.signed.record, monthly_excess_return: '0.06' } } };
    const result = await runAgainst(service, 'synthesis.verdict', { ...VERDICT_EXAMPLE, blocks: [first, changed] });
    expect((result.body as Verdict).evidenceCore).toMatchObject({ verdict: 'INSUFFICIENT-DATA', score: null, excluded: [{ index: 1, reason: expect.stringMatching(/sha256 does not match/) }] });
  });
});
