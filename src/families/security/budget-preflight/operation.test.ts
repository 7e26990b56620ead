import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../signing/hash.ts';
import { canonicalBytes, type JsonValue } from '../../../signing/rfc8785.ts';
import { useTestService } from '../../../../test/support/service.ts';
import { postJson, runAgainst, tampers, verifyBody } from '../../../../test/support/http.ts';
import { USDC_DEPLOYMENTS } from './data.ts';
import { MAX_ACCEPTS } from './quote.ts';

const service = useTestService();
const path = '/v1/budget/preflight';

const quote = {
  x402Version: 2,
  resource: { url: 'https://api.example.com/v1/report' },
  accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '250000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C', maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' } }],
};
const input = { quote: Buffer.from(JSON.stringify(quote)).toString('base64'), requested_url: 'https://api.example.com/v1/report', policy: { max_per_call_usd: '1.00', daily_cap_usd: '20' }, spent_today_usd: '3.75' };

/** Offline: the budget public key, RFC 8785 bytes, SHA-256 and Ed25519. */
async function recheckOffline(record: JsonValue, sha256: string, signature: string): Promise<boolean> {
  const published = (await (await fetch(`${service.url}/v1/budget/public-key`)).json()) as { publicKey: string };
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(published.publicKey, 'hex').toString('base64url') }, format: 'jwk' });
  const bytes = canonicalBytes(record);
  return createHash('sha256').update(bytes).digest('hex') === sha256 && verify(null, bytes, key, Buffer.from(signature, 'hex'));
}

describe('budget preflight over HTTP', () => {
  it('quotes with 402, and answers a bad policy with 422 naming the field', async () => {
    expect((await postJson(`${service.url}${path}`, input)).status).toBe(402);
    const bad = await postJson(`${service.url}${path}`, { ...input, policy: { max_per_call_usd: '1.0000001' } });
    expect(bad).toMatchObject({ status: 422, body: { issues: [{ path: 'policy.max_per_call_usd' }] } });
    const noUrl = await postJson(`${service.url}${path}`, { ...input, requested_url: undefined });
    expect(noUrl).toMatchObject({ status: 422, body: { issues: [{ path: 'requested_url' }] } });
  });

  it('signs the evidenceCore with the budget key; it re-checks on its free route and offline with the public key, and every tamper fails', async () => {
    const result = await runAgainst(service, 'budget.preflight', input);
    expect(result.body).toMatchObject({ evidenceCore: { outcome: 'ALLOW', recommended_entry: 0, entries: [{ verdict: 'ALLOW', amount_usd: '0.25' }] } });
    expect(result.body.publicKeyUrl).toBe(`${service.url}/v1/budget/public-key`);
    const { sha256, ed25519Sig } = result.seal;
    expect(await recheckOffline(result.record, sha256, ed25519Sig)).toBe(true);
    expect(result.body.verifyUrl).toBe(`${service.url}/v1/budget/preflight/recheck`);
    expect(await verifyBody(service, 'POST', '/v1/budget/preflight/recheck', result.record, sha256, ed25519Sig)).toMatchObject({ valid: true });
    for (const t of tampers(result.record as Record<string, JsonValue>, sha256, ed25519Sig)) {
      expect(await recheckOffline(t.record, t.sha256, t.signature), t.name).toBe(false);
      expect((await verifyBody(service, 'POST', '/v1/budget/preflight/recheck', t.record, t.sha256, t.signature)).valid, t.name).toBe(false);
    }
  });
});

describe('a quote larger than one call checks is refused before the quote (422 quote_too_large, nothing to pay)', () => {
  const policy = { max_per_call_usd: '1', daily_cap_usd: '5', allowed_networks: ['eip155:8453'], allowed_assets: ['0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'] };
  const call = (quoted: unknown) => postJson(`${service.url}${path}`, { quote: quoted, requested_url: 'https://a.example/x', policy });
  const refused = async (quoted: unknown, issuePath: string, message: RegExp) => {
    const answer = await call(quoted);
    expect(answer).toMatchObject({ status: 422, body: { error: 'quote_too_large', outcome: 'INVALID-INPUT', issues: [{ path: issuePath }] } });
    expect(answer.headers.get('payment-required')).toBeNull();
    expect(String(answer.body['message'])).toMatch(message);
  };
  const empties = (n: number) => ({ x402Version: 2, accepts: Array.from({ length: n }, () => ({})) });

  it('10,000 empty accepts entries as JSON (a 12 MB answer before): over the size of the header form', async () => {
    await refused(empties(10_000), 'quote', /at most 12288, what a 16384-character header holds/);
    await refused({ ...quote, extensions: { note: 'x'.repeat(12_288) } }, 'quote', /at most 12288/);
  });

  it('more accepts entries than are checked, as JSON or as the header; as many is quoted', async () => {
    await refused(empties(MAX_ACCEPTS + 1), 'quote.accepts', /21 accepts entries: at most 20/);
    await refused(Buffer.from(JSON.stringify(empties(MAX_ACCEPTS + 1))).toString('base64'), 'quote.accepts', /21 accepts entries/);
    expect((await call(empties(MAX_ACCEPTS))).status).toBe(402);
    expect((await call(Buffer.from(JSON.stringify(empties(MAX_ACCEPTS))).toString('base64'))).status).toBe(402);
  });
});

describe('a header quote whose JSON is not I-JSON', () => {
  it('a lone surrogate in network: a signed STOP (QUOTE-UNDECODABLE) that its re-check route finds valid', async () => {
    const text = JSON.stringify(quote).replace('"eip155:8453"', '"eip155:\\ud800"');
    expect(text).toContain('"eip155:\\ud800"');
    const result = await runAgainst(service, 'budget.preflight', { ...input, quote: Buffer.from(text).toString('base64') });
    expect(result.record).toMatchObject({ outcome: 'STOP', entries: [], reasons: [expect.stringMatching(/^QUOTE-UNDECODABLE: .*not I-JSON.*accepts\[0\]\.network: lone surrogate/)] });
    expect(await verifyBody(service, 'POST', '/v1/budget/preflight/recheck', result.record, result.seal.sha256, result.seal.ed25519Sig)).toMatchObject({ valid: true });
  });
});

describe('the USDC deployments table', () => {
  it('is cited by the SHA-256 of the exact bytes shipped; Base and Base Sepolia sign under their own EIP-712 names', () => {
    expect(USDC_DEPLOYMENTS.sha256).toBe(sha256Hex(readFileSync(new URL('./data/usdc-deployments.json', import.meta.url))));
    expect(USDC_DEPLOYMENTS.byNetwork.get('eip155:8453')).toMatchObject({ address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', eip712_name: 'USD Coin', eip712_version: '2' });
    expect(USDC_DEPLOYMENTS.byNetwork.get('eip155:84532')).toMatchObject({ eip712_name: 'USDC', eip712_version: '2' });
    expect(USDC_DEPLOYMENTS.v1Names.get('base')).toBe('eip155:8453');
  });
});
