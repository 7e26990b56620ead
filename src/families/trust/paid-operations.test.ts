import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { catalogEntryStream } from './verify-catalog/events.ts';
import { controlProofMessage } from './identity-control-proof/control-message.ts';
import { canonicalBytes, canonicalText, type JsonObject, type JsonValue } from '../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../signing/hash.ts';
import { edSigner, evmSigner, signedOutcome } from '../../../test/support/keys.ts';
import { createPayingFetch } from '../../../test/support/paying-client.ts';
import { postTo, useTestService } from '../../../test/support/service.ts';

/**
 * Every Trust and Reputation operation, paid over HTTP with the official x402 client (local
 * settlement), then re-checked on its free verify route and offline with the family's public
 * key; and every verify route refuses any tamper with content, timestamp, hash or signature.
 */

const service = useTestService();
const pay = createPayingFetch();

const ENVELOPE = ['sha256', 'ed25519Sig', 'keyId', 'publicKeyUrl', 'verifyUrl'];

interface Paid {
  body: JsonObject;
  record: JsonObject;
}

async function payFor(path: string, input: unknown, member?: string): Promise<Paid> {
  const res = await postTo(service, path, input, pay);
  const body = (await res.json()) as JsonObject;
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(res.headers.get('payment-response')).toBeTruthy();
  const record = member ? (body[member] as JsonObject) : Object.fromEntries(Object.entries(body).filter(([k]) => !ENVELOPE.includes(k)));
  return { body, record };
}

/** Offline: the published key, node-independent Ed25519 (noble), over the RFC 8785 bytes. */
async function checkOffline({ body, record }: Paid): Promise<void> {
  expect(canonicalSha256(record)).toBe(body.sha256);
  const key = (await (await fetch(body.publicKeyUrl as string)).json()) as { publicKey: string; keyId: string };
  expect(key.keyId).toBe(body.keyId);
  expect(ed25519.verify(Buffer.from(body.ed25519Sig as string, 'hex'), canonicalBytes(record), Buffer.from(key.publicKey, 'hex'))).toBe(true);
  const tampered = { ...record, tampered: true };
  expect(ed25519.verify(Buffer.from(body.ed25519Sig as string, 'hex'), canonicalBytes(tampered), Buffer.from(key.publicKey, 'hex'))).toBe(false);
}

type Params = Record<string, string>;

async function verify(method: 'GET' | 'POST', path: string, params: Params): Promise<{ valid: boolean; reason?: string }> {
  const res =
    method === 'GET'
      ? await fetch(`${service.url}${path}?${new URLSearchParams(params)}`)
      : await postTo(service, path, params);
  expect(res.status).toBe(200);
  return (await res.json()) as { valid: boolean; reason?: string };
}

const flipHex = (hex: string) => `${hex[0] === '0' ? '1' : '0'}${hex.slice(1)}`;

/** The verify route accepts the untouched result and refuses every tamper. */
async function expectVerifyRoute(method: 'GET' | 'POST', path: string, paid: Paid, content: Params, tampers: Params[]): Promise<void> {
  const seal = { signature: paid.body.ed25519Sig as string, sha256: paid.body.sha256 as string };
  expect(paid.body.verifyUrl).toBe(`${service.url}${path}`);
  expect(await verify(method, path, { ...content, ...seal })).toMatchObject({ valid: true });
  expect(await verify(method, path, { ...content, ...seal, sha256: flipHex(seal.sha256) })).toMatchObject({ valid: false });
  expect(await verify(method, path, { ...content, ...seal, signature: flipHex(seal.signature) })).toMatchObject({ valid: false });
  expect(tampers.length).toBeGreaterThan(0);
  for (const change of tampers) expect(await verify(method, path, { ...content, ...seal, ...change }), JSON.stringify(change)).toMatchObject({ valid: false });
}

const json = (v: JsonValue | undefined) => JSON.stringify(v);
/** The service's clock, which a signed proof's signed_at must be near. */
const clock = () => Math.floor(Date.now() / 1000);

describe('Trust and Reputation, paid over HTTP and re-checked', () => {
  it('veritrack attest', async () => {
    const paid = await payFor('/v1/veritrack/attest', { kind: 'model-eval', claim: { model: 'example-7b', score: 0.81 } });
    await checkOffline(paid);
    const r = paid.record;
    const content = { kind: r.kind as string, attested_at: String(r.attestedAt), claim: json(r.claim) };
    await expectVerifyRoute('GET', '/v1/veritrack/verify', paid, content, [
      { attested_at: String((r.attestedAt as number) + 1) },
      { kind: 'other' },
      { claim: json({ model: 'example-7b', score: 0.82 }) },
    ]);
  });

  it('receipts mint', async () => {
    const input = { receiptType: 'payment', tx: '0xabc123', action: 'settled invoice 42', actor: 'did:web:a.example', metadata: { amountUsd: '12.50' } };
    const paid = await payFor('/v1/receipts/mint', input);
    expect(paid.record).toEqual({ kind: 'receipt', ...input, mintsAt: expect.any(Number) });
    await checkOffline(paid);
    const r = paid.record;
    // subject is omitted by the verifier too: its default rebuilds the signed record.
    const content = { kind: 'receipt', receipt_type: 'payment', tx: '0xabc123', action: 'settled invoice 42', actor: 'did:web:a.example', metadata: json(r.metadata), mints_at: String(r.mintsAt) };
    await expectVerifyRoute('GET', '/v1/receipts/verify', paid, content, [
      { mints_at: String((r.mintsAt as number) - 1) },
      { tx: '0xabc124' },
      { subject: 'someone' },
      { metadata: '{}' },
    ]);
  });

  it('identity control-proof, earned by an EIP-191 signature over the claim\'s own text', async () => {
    const wallet = evmSigner(0x61);
    const message = controlProofMessage(wallet.address, 'ops', clock());
    const input = { identifier: wallet.address, control_method: 'eip191-signature', control_evidence: { message, signature: await wallet.sign(message) }, claimer: 'ops' };
    const paid = await payFor('/v1/identity/control-proof', input);
    expect(paid.record.verdict).toBe('CONTROL-VERIFIED');
    await checkOffline(paid);
    const r = paid.record;
    const content = { identifier: wallet.address, control_method: 'eip191-signature', claimer: 'ops', verdict: 'CONTROL-VERIFIED', control_evidence: json(r.control_evidence), claims_at: String(r.claimsAt) };
    await expectVerifyRoute('GET', '/v1/identity/control-proof/verify', paid, content, [
      { verdict: 'CONTROL-DOCUMENTED' },
      { claims_at: String((r.claimsAt as number) + 60) },
      { claimer: '' },
      { control_evidence: json({ message: 'other', signature: input.control_evidence.signature }) },
    ]);
  });

  it('identity control-proof: a genuine signature over another message is a paid CONTROL-FAILED; a stale proof is refused free, before the quote', async () => {
    const key = edSigner(0x63);
    const login = 'Sign in to forum.example. nonce 8f3a';
    const replayed = { identifier: key.didKey, control_method: 'ed25519-signature', control_evidence: { message: login, signature: key.sign(login) }, claimer: 'someone who found the signature' };
    expect((await payFor('/v1/identity/control-proof', replayed)).record.verdict).toBe('CONTROL-FAILED');

    const forAnotherClaimer = controlProofMessage(key.didKey, 'ops', clock());
    const borrowed = { ...replayed, control_evidence: { message: forAnotherClaimer, signature: key.sign(forAnotherClaimer) } };
    expect((await payFor('/v1/identity/control-proof', borrowed)).record.verdict).toBe('CONTROL-FAILED');

    const stale = controlProofMessage(key.didKey, 'ops', clock() - 3_600);
    const res = await postTo(service, '/v1/identity/control-proof', { ...replayed, claimer: 'ops', control_evidence: { message: stale, signature: key.sign(stale) } });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ error: 'control_proof_stale', outcome: 'INVALID-INPUT', issues: [{ path: 'control_evidence.message' }] });
  });

  it('readiness attest, READY from a complete and signed policy snapshot', async () => {
    const custodian = edSigner(62);
    const rule = { type: 'throttle', maxCallsPerMinute: 5 };
    const policy = { agent_did: 'did:web:a.example:agent', emergency_contact_did: 'did:web:a.example:oncall', escalation_seconds: 600, rules: [{ rule, signature: custodian.sign(canonicalText(rule)) }] };
    const paid = await payFor('/v1/readiness/attest', { target: 'fleet-1', custodian: custodian.didKey, policy });
    expect(paid.record.verdict).toBe('READY');
    await checkOffline(paid);
    const r = paid.record;
    const content = { target: 'fleet-1', custodian: custodian.didKey, verdict: 'READY', policy: json(r.policy), evidence: json(r.evidence), attests_at: String(r.attestsAt) };
    await expectVerifyRoute('GET', '/v1/readiness/attest/verify', paid, content, [
      { verdict: 'READINESS-GAP' },
      { attests_at: String((r.attestsAt as number) + 1) },
      { policy: json({ ...policy, escalation_seconds: 601 }) },
      { evidence: '[]' },
    ]);
  });

  it('agent reputation composite', async () => {
    const agent = 'did:web:a.example:agent';
    const signer = edSigner(63);
    const events = [
      await signedOutcome({ agent, outcome: 'success', at: 1_767_225_600, counterparty: 'shop-a' }, signer),
      await signedOutcome({ agent, outcome: 'failure', at: 1_767_225_000, counterparty: 'shop-b' }, evmSigner(0x64)),
      { event: { agent, outcome: 'success', at: 1 }, signature: 'ff'.repeat(64), signer: signer.hex },
      'garbage',
    ];
    const paid = await payFor('/v1/agent-reputation', { agent, events });
    expect(paid.record).toMatchObject({ outcome: 'SCORED', counts: { valid: 2, rejected: 2 } });
    expect(paid.record.reputation_score).toBeGreaterThanOrEqual(0);
    expect(paid.record.reputation_score).toBeLessThanOrEqual(1);
    await checkOffline(paid);
    await expectVerifyRoute('GET', '/v1/agent-reputation/verify', paid, { evidence: json(paid.record) }, [
      { evidence: json({ ...paid.record, reputation_score: 1 }) },
      { evidence: json({ ...paid.record, composedAt: (paid.record.composedAt as number) + 1 }) },
      { evidence: 'not json' },
    ]);
  });

  it('trusted-route ranking', async () => {
    const ok = (n: number, latency: number) => Array.from({ length: n }, () => ({ success: true, latency_ms: latency }));
    const input = { routes: [{ id: 'b', price_usd: 0.02, history: ok(6, 300) }, { id: 'a', price_usd: 0.01, history: ok(6, 100) }, { id: 'c', history: ok(1, 50) }] };
    const paid = await payFor('/v1/agent-reputation/trusted-route', input);
    expect(paid.record.routes_count).toBe(3);
    expect((paid.record.ranking as JsonObject[]).map((e) => e.id)).toEqual(['a', 'b', 'c']);
    await checkOffline(paid);
    const ranking = paid.record.ranking as JsonObject[];
    await expectVerifyRoute('GET', '/v1/agent-reputation/trusted-route/verify', paid, { ranking: json(ranking) }, [
      { ranking: json([ranking[1]!, ranking[0]!, ranking[2]!]) },
      { ranking: json(ranking.slice(0, 2)) },
      { ranking: json(ranking.map((e, i) => (i === 0 ? { ...e, score: 1 } : e))) },
    ]);
  });

  it('verify-catalog register: persisted as an event, re-checked on POST /v1/verify-catalog/recheck', async () => {
    // Register this service's own veritrack output: the trust index needs all three conditions.
    const source = await payFor('/v1/veritrack/attest', { kind: 'catalogued', claim: { n: 1 } });
    const key = (await (await fetch(source.body.publicKeyUrl as string)).json()) as { publicKey: string };
    const input = {
      claim: source.record,
      claim_sha256: source.body.sha256,
      signature: source.body.ed25519Sig,
      public_key: key.publicKey,
      source_url: 'https://example.org/outputs/1',
    };
    const paid = await payFor('/v1/verify-catalog/register', { ...input, claim: { ...source.record, verifyUrl: source.body.verifyUrl } }, 'evidenceCore');
    // Adding a member changed the claim: the supplied digest no longer matches, so the index is deferred.
    expect(paid.record).toMatchObject({ integrity: 'MISMATCH', trust_index: null, service_references: 1 });
    const good = await payFor('/v1/verify-catalog/register', input, 'evidenceCore');
    expect(good.record).toMatchObject({ integrity: 'VERIFIED', signature: { status: 'VERIFIED' }, source: { status: 'HTTPS-URL-SUPPLIED' }, trust_index: 0.7, deferred_reasons: [] });
    await checkOffline(good);

    const stored = await service.deps.store.readStream(catalogEntryStream(good.record.entryId as string));
    expect(stored.map((e) => e.type)).toEqual(['CatalogEntryRegistered']);
    expect((stored[0]!.data as JsonObject).evidenceCore).toEqual(good.record);

    await expectVerifyRoute('POST', '/v1/verify-catalog/recheck', good, { body: json(good.record) }, [
      { body: json({ ...good.record, trust_index: 1 }) },
      { body: json({ ...good.record, registeredAt: (good.record.registeredAt as number) + 1 }) },
    ]);
  });
});

describe('Trust and Reputation, refused before any payment', () => {
  const post = (path: string, body: unknown) => postTo(service, path, body, pay);

  it.each([
    ['/v1/receipts/mint', { actor: 'x' }, 'receiptType, tx, action'],
    ['/v1/receipts/mint', { receiptType: 'payment', tx: ' ' }, 'tx, action'],
    ['/v1/identity/control-proof', { claimer: 'x' }, 'identifier, control_method'],
    ['/v1/identity/control-proof', { identifier: 'did:web:a.example' }, 'control_method'],
  ])('%s %j -> 422 INVALID-INPUT naming %s, nothing charged', async (path, body, names) => {
    const res = await post(path, body);
    expect(res.status).toBe(422);
    expect(res.headers.get('payment-response')).toBeNull();
    const problem = (await res.json()) as { outcome: string; message: string; issues: Array<{ path: string }> };
    expect(problem.outcome).toBe('INVALID-INPUT');
    expect(problem.message).toContain(names);
    for (const name of names.split(', ')) expect(problem.issues.map((i) => i.path)).toContain(name);
  });

  it('quotes every built operation of the family (402), and serves the readiness standard free', async () => {
    for (const path of ['/v1/readiness/attest', '/v1/agent-reputation', '/v1/agent-reputation/trusted-route', '/v1/verify-catalog/register']) {
      const res = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect([402, 422], path).toContain(res.status);
    }
    const standard = (await (await fetch(`${service.url}/v1/readiness/standard`)).json()) as { standard: string; elements: unknown[] };
    expect(standard.standard).toBe('containment-readiness/2');
    expect(standard.elements).toHaveLength(5);
  });
});
