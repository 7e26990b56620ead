import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson, runAgainst, tampers, verifyBody } from '../../../../test/support/http.ts';
import { FINANCE_EXAMPLE } from './operation.ts';

const service = useTestService();
const path = '/v1/finance/attested-evidence';

describe('finance attested evidence over HTTP', () => {
  it('quotes with 402; a float amount, an unknown concept or a prior in another currency is refused with 422 naming the field', async () => {
    expect((await postJson(`${service.url}${path}`, FINANCE_EXAMPLE)).status).toBe(402);
    const float = await postJson(`${service.url}${path}`, { statement: { ...FINANCE_EXAMPLE.statement, income_statement: { Revenues: 1200000 } } });
    expect(float).toMatchObject({ status: 422, body: { issues: [{ path: 'statement.income_statement.Revenues' }] } });
    const unknown = await postJson(`${service.url}${path}`, { statement: { ...FINANCE_EXAMPLE.statement, balance_sheet: { Goodwill: '1' } } });
    expect(unknown.status).toBe(422);
    for (const currency of ['ABC', 'XXX', 'XTS']) {
      const notInUse = await postJson(`${service.url}${path}`, { ...FINANCE_EXAMPLE, statement: { ...FINANCE_EXAMPLE.statement, currency } });
      expect(notInUse, currency).toMatchObject({ status: 422, body: { issues: [{ path: 'statement.currency' }] } });
    }
    const prior = await postJson(`${service.url}${path}`, { ...FINANCE_EXAMPLE, prior: { ...FINANCE_EXAMPLE.statement, currency: 'EUR', period_end: '2024-12-31' } });
    expect(prior).toMatchObject({ status: 422, body: { error: 'prior_not_comparable', issues: [{ path: 'prior.currency' }] } });
    // The message alone names the fields, for a client that shows only the message.
    expect(prior.body.message).toBe('prior.currency: is EUR, the statement is in USD: compare like with like');
    const both = await postJson(`${service.url}${path}`, { ...FINANCE_EXAMPLE, prior: { ...FINANCE_EXAMPLE.statement, currency: 'EUR' } });
    expect(both.body.message).toBe(`prior.currency: is EUR, the statement is in USD: compare like with like; prior.period_end: ${FINANCE_EXAMPLE.statement.period_end} is not before ${FINANCE_EXAMPLE.statement.period_end}`);
  });

  it('signs the findings and re-checks them on GET /v1/synthesis/verify; every tamper fails', async () => {
    const result = await runAgainst(service, 'finance.attested-evidence', FINANCE_EXAMPLE);
    expect(result.body).toHaveProperty('evidenceCore.outcome', 'FINDINGS');
    const { sha256, ed25519Sig } = result.seal;
    expect((await verifyBody(service, 'GET', '/v1/synthesis/verify', result.record, sha256, ed25519Sig)).valid).toBe(true);
    for (const t of tampers(result.record as Record<string, JsonValue>, sha256, ed25519Sig))
      expect((await verifyBody(service, 'GET', '/v1/synthesis/verify', t.record, t.sha256, t.signature)).valid, t.name).toBe(false);
  });
});
