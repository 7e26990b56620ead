import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { USDC_DEPLOYMENTS } from './data.ts';
import { preflightPayment } from './engine.ts';
import type { BudgetPreflightInput } from './input.ts';

const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const PAYEE = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const URL_PAID = 'https://api.example.com/v1/report';

const baseEntry = { scheme: 'exact', network: 'eip155:8453', amount: '250000', asset: BASE_USDC, payTo: PAYEE, maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' } };
const quoteV2 = (entries: object[] = [baseEntry], resource: object | null = { url: URL_PAID }): JsonObject => ({ x402Version: 2, ...(resource ? { resource } : {}), accepts: entries }) as JsonObject;
const input = (over: Partial<BudgetPreflightInput> = {}): BudgetPreflightInput => ({ quote: quoteV2(), requested_url: URL_PAID, policy: { max_per_call_usd: '1.00' }, ...over });

interface Entry {
  verdict: string;
  budget_exceeded: boolean;
  amount_usd: string | null;
  checks: Array<{ check: string; result: string; detail: string }>;
}
interface Preflight {
  outcome: string;
  recommended_entry: number | null;
  entries: Entry[];
  reasons: string[];
  quote_encoding: string;
  not_performed: Array<{ check: string }>;
  ruleset: { data: Array<{ sha256: string }> };
}
const run = (i: BudgetPreflightInput) => preflightPayment(i, 1_767_225_600, USDC_DEPLOYMENTS) as unknown as Preflight;
const check = (entry: Entry, name: string) => entry.checks.find((c) => c.check === name);

describe('a quote that passes every check', () => {
  it('decoded JSON: ALLOW, the entry to pay with, the amount exact in USD', () => {
    const record = run(input());
    expect(record).toMatchObject({ outcome: 'ALLOW', recommended_entry: 0, quote_encoding: 'json', reasons: [] });
    expect(record.entries[0]).toMatchObject({ verdict: 'ALLOW', amount_usd: '0.25', budget_exceeded: false });
    expect(record.entries[0]!.checks.every((c) => c.result === 'PASS')).toBe(true);
    expect(record.ruleset.data[0]!.sha256).toBe(USDC_DEPLOYMENTS.sha256);
  });
  it('the PAYMENT-REQUIRED header value (base64 of the JSON) gives the same verdict', () => {
    const header = Buffer.from(JSON.stringify(quoteV2())).toString('base64');
    expect(run(input({ quote: header }))).toMatchObject({ outcome: 'ALLOW', quote_encoding: 'base64-json' });
  });
  it('an x402 v1 quote: network by name, maxAmountRequired, the resource in the entry', () => {
    const v1 = { x402Version: 1, accepts: [{ scheme: 'exact', network: 'base', maxAmountRequired: '10000', resource: URL_PAID, asset: BASE_USDC, payTo: PAYEE, maxTimeoutSeconds: 60, extra: { name: 'USD Coin', version: '2' } }] };
    const record = run(input({ quote: v1 }));
    expect(record).toMatchObject({ outcome: 'ALLOW', entries: [{ amount_usd: '0.01' }] });
  });
  it('Base Sepolia USDC signs as "USDC", not "USD Coin"', () => {
    const sepolia = { ...baseEntry, network: 'eip155:84532', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', extra: { name: 'USDC', version: '2' } };
    const record = run(input({ quote: quoteV2([sepolia]) }));
    expect(record.outcome).toBe('ALLOW');
    expect(check(record.entries[0]!, 'network')!.detail).toContain('test network');
    const wrongName = run(input({ quote: quoteV2([{ ...sepolia, extra: { name: 'USD Coin', version: '2' } }]) }));
    expect(check(wrongName.entries[0]!, 'extra.name')).toMatchObject({ result: 'FAIL' });
  });
  it('one atomic unit is one micro-dollar, exactly', () => {
    expect(run(input({ quote: quoteV2([{ ...baseEntry, amount: '1' }]) })).entries[0]!.amount_usd).toBe('0.000001');
  });
});

describe('STOP: a check failed', () => {
  it.each([
    ['asset', { asset: '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb' }],
    ['extra.name', { extra: { name: 'USDC', version: '2' } }],
    ['extra.version', { extra: { name: 'USD Coin', version: '1' } }],
    ['amount', { amount: '0.25' }],
    ['payTo', { payTo: 'not-an-address' }],
    ['maxTimeoutSeconds', { maxTimeoutSeconds: 0 }],
  ])('%s', (name, change) => {
    const record = run(input({ quote: quoteV2([{ ...baseEntry, ...change }]) }));
    expect(record).toMatchObject({ outcome: 'STOP', recommended_entry: null });
    expect(check(record.entries[0]!, name)).toMatchObject({ result: 'FAIL' });
  });
  it('the caller\'s lists: a denied payee, a payee not allowed, a network or asset not allowed', () => {
    expect(run(input({ policy: { max_per_call_usd: '1', denied_payees: [PAYEE.toLowerCase()] } })).entries[0]!.verdict).toBe('STOP');
    expect(run(input({ policy: { max_per_call_usd: '1', allowed_payees: ['0x0000000000000000000000000000000000000001'] } })).outcome).toBe('STOP');
    expect(run(input({ policy: { max_per_call_usd: '1', allowed_networks: ['eip155:1'] } })).outcome).toBe('STOP');
    expect(run(input({ policy: { max_per_call_usd: '1', allowed_assets: ['0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'] } })).outcome).toBe('STOP');
    expect(run(input({ policy: { max_per_call_usd: '1', allowed_payees: [PAYEE], denied_payees: [] } })).outcome).toBe('ALLOW');
  });
  it('a quote for another URL', () => {
    const record = run(input({ requested_url: 'https://api.example.com/v1/other' }));
    expect(check(record.entries[0]!, 'resource')).toMatchObject({ result: 'FAIL' });
    // Case of the host and a trailing slash do not make another resource.
    expect(run(input({ requested_url: 'https://API.example.com/v1/report/' })).outcome).toBe('ALLOW');
  });
  it('a header that is not base64 of a JSON quote', () => {
    expect(run(input({ quote: 'not base64 !!' }))).toMatchObject({ outcome: 'STOP', entries: [], reasons: [expect.stringContaining('QUOTE-UNDECODABLE')] });
    expect(run(input({ quote: Buffer.from('{"accepts": []}').toString('base64') })).reasons[0]).toContain('no accepts entry');
    const latin1 = Buffer.from('{"x402Version":2,"error":"d\xe9j\xe0","accepts":[]}', 'latin1').toString('base64');
    expect(run(input({ quote: latin1 })).reasons[0]).toContain('not of UTF-8 text (the byte 0xE9 at offset 27');
  });
  it('a header of JSON that is not I-JSON (RFC 7493) is undecodable as a malformed one is: nothing JSON.parse guessed is checked', () => {
    const header = (text: string) => input({ quote: Buffer.from(text).toString('base64') });
    const entry = JSON.stringify(baseEntry);
    const duplicate = run(header(`{"x402Version":2,"resource":{"url":"${URL_PAID}"},"accepts":[${entry.replace('"amount":"250000"', '"amount":"99000000","amount":"250000"')}]}`));
    expect(duplicate).toMatchObject({ outcome: 'STOP', entries: [], recommended_entry: null, reasons: [expect.stringMatching(/^QUOTE-UNDECODABLE: .*accepts\[0\]\.amount: duplicate member name "amount"/)] });
    const inexact = run(header(`{"x402Version":2,"resource":{"url":"${URL_PAID}"},"accepts":[${entry.replace('"maxTimeoutSeconds":300', '"maxTimeoutSeconds":1e400')}]}`));
    expect(inexact.reasons[0]).toMatch(/^QUOTE-UNDECODABLE: .*maxTimeoutSeconds: number 1e400 overflows/);
    // The same quote, I-JSON, is checked as before.
    expect(run(header(`{"x402Version":2,"resource":{"url":"${URL_PAID}"},"accepts":[${entry}]}`)).outcome).toBe('ALLOW');
  });
});

describe('HOLD: a check could not be made', () => {
  it('a network outside the table: the asset cannot be confirmed as USDC, nor its decimals', () => {
    const record = run(input({ quote: quoteV2([{ ...baseEntry, network: 'eip155:56' }]) }));
    expect(record).toMatchObject({ outcome: 'HOLD', entries: [{ verdict: 'HOLD', amount_usd: null }] });
    expect(check(record.entries[0]!, 'asset')).toMatchObject({ result: 'UNCHECKED' });
  });
  it('no extra.name or extra.version, no resource URL, a timeout over an hour, another scheme', () => {
    expect(run(input({ quote: quoteV2([{ ...baseEntry, extra: {} }]) })).outcome).toBe('HOLD');
    expect(run(input({ quote: quoteV2([baseEntry], null) })).outcome).toBe('HOLD');
    expect(run(input({ quote: quoteV2([{ ...baseEntry, maxTimeoutSeconds: 86_400 }]) })).outcome).toBe('HOLD');
    expect(run(input({ quote: quoteV2([{ ...baseEntry, scheme: 'upto' }]) })).outcome).toBe('HOLD');
  });
  it('a daily cap without spent_today_usd is not checked, never taken as zero', () => {
    const record = run(input({ policy: { max_per_call_usd: '1', daily_cap_usd: '10' } }));
    expect(record.outcome).toBe('HOLD');
    expect(check(record.entries[0]!, 'daily_cap_usd')!.detail).toContain('spent_today_usd NOT-PROVIDED');
  });
});

describe('BUDGET-EXCEEDED: a cap would be passed', () => {
  it('over max_per_call_usd', () => {
    const record = run(input({ policy: { max_per_call_usd: '0.10' } }));
    expect(record).toMatchObject({ outcome: 'BUDGET-EXCEEDED', entries: [{ verdict: 'STOP', budget_exceeded: true }] });
  });
  it('over the daily cap with what was spent today, exactly (no rounding)', () => {
    expect(run(input({ policy: { max_per_call_usd: '1', daily_cap_usd: '10' }, spent_today_usd: '9.75' })).outcome).toBe('ALLOW');
    expect(run(input({ policy: { max_per_call_usd: '1', daily_cap_usd: '10' }, spent_today_usd: '9.750001' })).outcome).toBe('BUDGET-EXCEEDED');
  });
  it('over budget and another failure: STOP, not BUDGET-EXCEEDED', () => {
    expect(run(input({ quote: quoteV2([{ ...baseEntry, extra: { name: 'USDC', version: '2' } }]), policy: { max_per_call_usd: '0.1' } })).outcome).toBe('STOP');
  });
});

describe('several entries and the governor', () => {
  it('the first entry that passes is the one to pay with', () => {
    const record = run(input({ quote: quoteV2([{ ...baseEntry, asset: '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb' }, baseEntry]) }));
    expect(record).toMatchObject({ outcome: 'ALLOW', recommended_entry: 1, entries: [{ verdict: 'STOP' }, { verdict: 'ALLOW' }] });
  });
  it('governance_agent_id is echoed; the governor state is listed as not performed', () => {
    const record = run(input({ governance_agent_id: 'agent-7' }));
    expect(record).toMatchObject({ governance_agent_id: 'agent-7' });
    expect(record.not_performed.map((n) => n.check)).toContain('spend-governor state of governance_agent_id');
  });
  it('is deterministic but for the stamp', () => {
    const a = preflightPayment(input(), 1, USDC_DEPLOYMENTS);
    const b = preflightPayment(input(), 2, USDC_DEPLOYMENTS);
    expect({ ...a, checkedAt: 0 }).toEqual({ ...b, checkedAt: 0 });
  });
});
