import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { auditTranscript, type AuditTranscript } from './engine.ts';
import { AUDIT_CHECKS } from '../conformance-standard/standard.ts';
import { canonicalBytes, type JsonObject } from '../../../signing/rfc8785.ts';
import { sha256Hex } from '../../../signing/hash.ts';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8').toString('base64');
const requirements = { scheme: 'exact', network: 'eip155:8453', amount: '250000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0x000000000000000000000000000000000000dEaD', maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' } };
const paymentRequired = { x402Version: 2, resource: { url: 'https://api.example.com/v1/data', description: 'data', mimeType: 'application/json' }, accepts: [requirements] };
const settlement = { success: true, transaction: '0xabc', network: 'eip155:8453', payer: '0x1111111111111111111111111111111111111111' };
const EXPOSE = 'PAYMENT-REQUIRED, PAYMENT-RESPONSE';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const publicKeyHex = publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
function signedBody(record: JsonObject, member?: string): JsonObject {
  const bytes = canonicalBytes(record);
  const envelope = { sha256: sha256Hex(bytes), ed25519Sig: sign(null, bytes, privateKey).toString('hex'), keyId: 'k', publicKeyUrl: 'https://api.example.com/pk' };
  return member ? { [member]: record, ...envelope } : { ...record, ...envelope };
}

function goodTranscript(): AuditTranscript {
  return {
    endpoint: { url: 'https://api.example.com/v1/data', method: 'post' },
    challenge: { status: 402, headers: { 'Payment-Required': b64(paymentRequired), 'cache-control': 'no-store', 'access-control-expose-headers': EXPOSE }, body: {} },
    paid: { status: 200, headers: { 'PAYMENT-RESPONSE': b64(settlement), 'Access-Control-Expose-Headers': EXPOSE }, body: signedBody({ kind: 'x', attestedAt: 1, claim: { a: 1 } }) },
    publicKey: publicKeyHex,
  };
}

const audit = (t: AuditTranscript) => auditTranscript(t, { auditId: 'a1', now: 1_767_225_600 });
const statusOf = (record: JsonObject) => Object.fromEntries((record.checks as Array<{ id: string; status: string }>).map((c) => [c.id, c.status]));
const failedIds = (record: JsonObject) => Object.entries(statusOf(record)).filter(([, s]) => s === 'fail').map(([id]) => id);

function withRequired(mutate: (pr: typeof paymentRequired & Record<string, unknown>) => unknown, encoding: 'base64' | 'base64url' = 'base64'): AuditTranscript {
  const t = goodTranscript();
  const pr = structuredClone(paymentRequired) as typeof paymentRequired & Record<string, unknown>;
  mutate(pr);
  t.challenge.headers['Payment-Required'] = Buffer.from(JSON.stringify(pr), 'utf8').toString(encoding);
  return t;
}
function withEntry(mutate: (entry: Record<string, unknown>) => void): AuditTranscript {
  return withRequired((pr) => mutate(pr.accepts[0] as unknown as Record<string, unknown>));
}

describe('bureau audit engine', () => {
  it('a conformant transcript passes every check', () => {
    const record = audit(goodTranscript());
    expect(failedIds(record)).toEqual([]);
    expect(Object.values(statusOf(record)).every((s) => s === 'pass')).toBe(true);
    expect(record).toMatchObject({ kind: 'bureau.audit', ruleset: { id: 'x402-conformance', version: '1' }, outcome: 'CONFORMANT', score: { passed: AUDIT_CHECKS.length, ratio: 1 }, endpoint: { method: 'POST' } });
  });

  const oneDefect: Array<[string, () => AuditTranscript]> = [
    ['X402-HDR-001', () => ({ ...goodTranscript(), challenge: { ...goodTranscript().challenge, status: 401 } })],
    ['X402-ENC-001', () => {
      // base64url: search for a description whose encoding needs the url-safe alphabet.
      let description = '>?';
      while (!/[-_]/.test(Buffer.from(JSON.stringify({ ...paymentRequired, resource: { ...paymentRequired.resource, description } })).toString('base64url'))) description += '>?';
      return withRequired((pr) => { pr.resource.description = description; }, 'base64url');
    }],
    ['X402-VER-001', () => withRequired((pr) => { pr.x402Version = 1; })],
    ['X402-RES-001', () => withRequired((pr) => { delete (pr as Record<string, unknown>).resource; })],
    ['X402-ACC-001', () => withRequired((pr) => { (pr as Record<string, unknown>).accepts = []; })],
    ['X402-REQ-001', () => withEntry((e) => { delete e.payTo; })],
    ['X402-NET-001', () => withEntry((e) => { e.network = 'base'; })],
    ['X402-AMT-001', () => withEntry((e) => { e.amount = '0.25'; })],
    ['X402-EIP-001', () => withEntry((e) => { e.extra = { name: 'USD Coin' }; })],
    ['X402-TMO-001', () => withEntry((e) => { e.maxTimeoutSeconds = 0; })],
    ['X402-CCH-001', () => { const t = goodTranscript(); t.challenge.headers['cache-control'] = 'max-age=60'; return t; }],
    ['X402-COR-001', () => { const t = goodTranscript(); t.challenge.headers['access-control-expose-headers'] = 'PAYMENT-REQUIRED'; return t; }],
    ['X402-PRS-001', () => { const t = goodTranscript(); delete t.paid!.headers['PAYMENT-RESPONSE']; return t; }],
    ['X402-SIG-001', () => { const t = goodTranscript(); (t.paid!.body as JsonObject).claim = { a: 2 }; return t; }],
  ];
  it.each(oneDefect)('a transcript with one defect fails exactly %s', (id, make) => {
    const record = audit(make());
    expect(failedIds(record)).toEqual([id]);
    expect(record.defects).toEqual([id]);
    expect(record.outcome).toBe('NON-CONFORMANT');
  });

  it('every check of the standard has a one-defect case', () => {
    expect(oneDefect.map(([id]) => id).sort()).toEqual(AUDIT_CHECKS.map((c) => c.id).sort());
  });

  it('marks as not-provided what the transcript does not carry, and scores only what was assessed', () => {
    const t = goodTranscript();
    delete t.paid;
    const record = audit(t);
    expect(statusOf(record)['X402-PRS-001']).toBe('not-provided');
    expect(statusOf(record)['X402-SIG-001']).toBe('not-provided');
    expect(record.score).toMatchObject({ notProvided: 2, assessed: AUDIT_CHECKS.length - 2, ratio: 1 });
    const noKey = goodTranscript();
    delete noKey.publicKey;
    expect(statusOf(audit(noKey))['X402-SIG-001']).toBe('not-provided');
  });

  it('a 402 without any PAYMENT-REQUIRED fails the header check and leaves the content checks not-provided', () => {
    const t = goodTranscript();
    delete t.challenge.headers['Payment-Required'];
    const s = statusOf(audit(t));
    expect(s['X402-HDR-001']).toBe('fail');
    expect(s['X402-ENC-001']).toBe('not-provided');
    expect(s['X402-VER-001']).toBe('not-provided');
  });

  it('re-checks results under a signed member, with or without the hint', () => {
    const t = goodTranscript();
    t.paid!.body = signedBody({ kind: 'bureau.audit', n: 1 }, 'evidenceCore');
    expect(statusOf(audit(t))['X402-SIG-001']).toBe('pass');
    t.paid!.body = { ...signedBody({ kind: 'y' }, 'result'), note: 'extra' };
    expect(statusOf(audit({ ...t, signedMember: 'result' }))['X402-SIG-001']).toBe('pass');
    expect(statusOf(audit({ ...t, signedMember: 'missing' }))['X402-SIG-001']).toBe('fail');
  });

  it('header names are case-insensitive and the result is deterministic', () => {
    const t = goodTranscript();
    t.challenge.headers = Object.fromEntries(Object.entries(t.challenge.headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect(failedIds(audit(t))).toEqual([]);
    expect(audit(goodTranscript())).toEqual(audit(goodTranscript()));
  });

  it('reports INSUFFICIENT-DATA only when nothing could be assessed: never for a real challenge', () => {
    const t = goodTranscript();
    t.challenge = { status: 200, headers: {} };
    delete t.paid;
    const record = audit(t);
    expect(record.outcome).toBe('NON-CONFORMANT');
    expect(failedIds(record)).toEqual(['X402-HDR-001', 'X402-COR-001']);
  });
});
