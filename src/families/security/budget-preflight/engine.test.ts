import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { USDC_DEPLOYMENTS, USDC_DEPLOYMENTS_REF } from './deployments.ts';
import { preflight, type PreflightInput } from './engine.ts';
import { budgetPreflight } from './operation.ts';

const example = budgetPreflight.example as PreflightInput;
const quote = example.quote as JsonObject & { accepts: JsonObject[] };
const run = (input: PreflightInput) => preflight(input, USDC_DEPLOYMENTS, { ...USDC_DEPLOYMENTS_REF }, 1_767_225_600) as JsonObject & { entries: Array<JsonObject & { reasons: string[] }> };
const withEntry = (changes: JsonObject) => ({ ...example, quote: { ...quote, accepts: [{ ...quote.accepts[0]!, ...changes }] } });

describe('x402 payment preflight', () => {
  it('allows a well-formed Base USDC quote within the caps, with the amount decoded exactly', () => {
    const record = run(example);
    expect(record).toMatchObject({ outcome: 'ALLOW', recommended_entry: 0, entries: [{ decision: 'ALLOW', amount_usd: '0.25', reasons: [] }] });
    expect(record['ruleset']).toMatchObject({ data: [{ name: 'usdc-deployments', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), data_date: '2026-11-24' }] });
  });

  it('reads the PAYMENT-REQUIRED header form (base64) the same way', () => {
    const header = Buffer.from(JSON.stringify(quote)).toString('base64');
    expect(run({ ...example, quote: header })).toMatchObject({ outcome: 'ALLOW', x402_version: 2 });
  });

  it('stops a look-alike token, a wrong EIP-712 domain, a denied payee and a quote for another URL, each with its reason', () => {
    expect(run(withEntry({ asset: '0x1111111111111111111111111111111111111111' })).entries[0]!.reasons).toEqual([expect.stringMatching(/^asset: .* is not USDC on Base/)]);
    expect(run(withEntry({ extra: { name: 'USDC', version: '2' } })).entries[0]).toMatchObject({ decision: 'STOP', reasons: [expect.stringMatching(/^eip712 domain:/)] });
    expect(run({ ...example, policy: { ...example.policy, denied_payees: [quote.accepts[0]!['payTo'] as string] } })).toMatchObject({ outcome: 'STOP' });
    expect(run({ ...example, requested_url: 'https://api.example.com/v1/other' }).entries[0]!.reasons).toEqual([expect.stringMatching(/^resource:/)]);
  });

  it('BUDGET-EXCEEDED when the call or the day would pass a cap; HOLD when the daily spend is unknown', () => {
    expect(run(withEntry({ amount: '1000001' }))).toMatchObject({ outcome: 'BUDGET-EXCEEDED', entries: [{ amount_usd: '1.000001' }] });
    expect(run({ ...example, spent_today_usd: '19.9' })).toMatchObject({ outcome: 'BUDGET-EXCEEDED' });
    const { spent_today_usd: _s, ...unknownSpend } = example;
    expect(run(unknownSpend)).toMatchObject({ outcome: 'HOLD', entries: [{ reasons: ['daily cap: daily_cap_usd is set but spent_today_usd was not supplied'] }] });
  });

  it('an unknown network is HOLD, a v1 quote maps its network name, a malformed amount stops', () => {
    expect(run({ ...withEntry({ network: 'eip155:999999' }), policy: { max_per_call_usd: '1' } })).toMatchObject({ outcome: 'HOLD' });
    const v1 = { x402Version: 1, accepts: [{ scheme: 'exact', network: 'base', maxAmountRequired: '10000', resource: 'https://api.example.com/v1/report', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: quote.accepts[0]!['payTo'], maxTimeoutSeconds: 60, extra: { name: 'USD Coin', version: '2' } }] };
    expect(run({ ...example, quote: v1 as unknown as JsonObject })).toMatchObject({ outcome: 'ALLOW', entries: [{ amount_usd: '0.01' }] });
    expect(run(withEntry({ amount: '1.5' }))).toMatchObject({ outcome: 'STOP' });
  });

  it('the curated table lists each address once, checksummed', () => {
    const addresses = USDC_DEPLOYMENTS.deployments.map((d) => d.address.toLowerCase());
    expect(new Set(addresses).size).toBe(addresses.length);
  });
});
