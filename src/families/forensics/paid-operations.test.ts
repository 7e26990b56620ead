import { ed25519 } from '@noble/curves/ed25519.js';
import { describe, expect, it } from 'vitest';
import { findOperation } from '../../catalog/index.ts';
import { canonicalBytes, canonicalText, type JsonObject } from '../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../signing/hash.ts';
import { createPayingFetch } from '../../../test/support/paying-client.ts';
import { fetchQuote, signPayment } from '../../../test/support/x402-payments.ts';
import { postTo, useTestService } from '../../../test/support/service.ts';

/**
 * The four Forensics and Evidence operations, paid over HTTP with the official x402 client
 * (local settlement), then re-checked on their free routes and offline with the family's public
 * key; every re-check refuses any tamper.
 */

const service = useTestService();
const pay = createPayingFetch();

interface Paid {
  body: JsonObject;
  record: JsonObject;
  text: string;
}

async function payFor(path: string, input: unknown, member: string): Promise<Paid> {
  const res = await postTo(service, path, input, pay);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get('payment-response')).toBeTruthy();
  const body = JSON.parse(text) as JsonObject;
  return { body, record: body[member] as JsonObject, text };
}

async function checkOffline({ body, record }: Paid): Promise<void> {
  expect(canonicalSha256(record)).toBe(body.sha256);
  const key = (await (await fetch(body.publicKeyUrl as string)).json()) as { publicKey: string; keyId: string };
  expect(key.keyId).toBe(body.keyId);
  const sig = Buffer.from(body.ed25519Sig as string, 'hex');
  const pub = Buffer.from(key.publicKey, 'hex');
  expect(ed25519.verify(sig, canonicalBytes(record), pub)).toBe(true);
  expect(ed25519.verify(sig, canonicalBytes({ ...record, tampered: true }), pub)).toBe(false);
}

async function verifyBody(path: string, record: JsonObject, sha256: string, signature: string): Promise<{ valid: boolean; reason?: string }> {
  const res = await fetch(`${service.url}${path}?${new URLSearchParams({ body: canonicalText(record), sha256, signature })}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { valid: boolean; reason?: string };
}

const flipHex = (hex: string) => `${hex[0] === '0' ? '1' : '0'}${hex.slice(1)}`;

/** The body verify route accepts the result as received and refuses every tamper. */
async function expectBodyVerify(path: string, paid: Paid, tampers: JsonObject[]): Promise<void> {
  const sha = paid.body.sha256 as string;
  const sig = paid.body.ed25519Sig as string;
  expect(paid.body.verifyUrl).toBe(`${service.url}${path}`);
  expect(await verifyBody(path, paid.record, sha, sig)).toMatchObject({ valid: true });
  expect(await verifyBody(path, paid.record, flipHex(sha), sig)).toMatchObject({ valid: false });
  expect(await verifyBody(path, paid.record, sha, flipHex(sig))).toMatchObject({ valid: false });
  for (const change of tampers) expect(await verifyBody(path, { ...paid.record, ...change }, sha, sig), JSON.stringify(change)).toMatchObject({ valid: false });
  const unparsable = await fetch(`${service.url}${path}?${new URLSearchParams({ body: '{not json', sha256: sha, signature: sig })}`);
  expect(await unparsable.json()).toMatchObject({ valid: false });
}

describe('Forensics and Evidence, paid over HTTP and re-checked', () => {
  it('evidence ingest, then query: same set in shuffled order gives byte-identical receipts', async () => {
    const a = await payFor('/v1/evidence/ingest', { action: 'model.deployed', actor: 'did:example:ops', payload: { env: 'prod' } }, 'sealed');
    const b = await payFor('/v1/evidence/ingest', { action: 'model.rolled-back', occurredAt: 1_767_000_000 }, 'sealed');
    expect(a.record.action_hash_source).toBe('derived');
    await checkOffline(a);
    await expectBodyVerify('/v1/evidence/verify', a, [{ entryId: '0'.repeat(64) }, { sealedAt: (a.record.sealedAt as number) + 1 }, { entry: { action: 'model.deleted' } }]);

    // The same entry again: the very record sealed first, and the answer says so and when.
    const again = await payFor('/v1/evidence/ingest', { payload: { env: 'prod' }, actor: 'did:example:ops', action: 'model.deployed', action_hash: a.record.action_hash }, 'sealed');
    expect(again.body.sealed).toEqual(a.body.sealed);
    expect(again.body.sha256).toBe(a.body.sha256);
    expect(again.body.ed25519Sig).toBe(a.body.ed25519Sig);
    expect(again.body.already_recorded).toMatchObject({ first_recorded_at: a.record.sealedAt, note: expect.stringContaining('action_hash_source describes that first request') });
    expect(a.body).not.toHaveProperty('already_recorded');

    const ids = [a.record.entryId as string, b.record.entryId as string];
    const unknown = 'e'.repeat(64);
    const q1 = await payFor('/v1/evidence/query', { entryIds: [ids[0], ids[1], unknown] }, 'receipt');
    const q2 = await payFor('/v1/evidence/query', { entryIds: [unknown, ids[1], ids[0], ids[1]] }, 'receipt');
    expect(q2.text).toBe(q1.text);
    expect(q1.record).toMatchObject({ outcome: 'PARTIAL', not_found: [unknown], found_count: 2 });
    expect((q1.record.entries as JsonObject[]).map((e) => e.sha256).sort()).toEqual([a.body.sha256, b.body.sha256].sort());
    await checkOffline(q1);
    await expectBodyVerify('/v1/evidence/verify', q1, [{ not_found: [] }, { merkle_root: '0'.repeat(64) }, { outcome: 'BOUND' }]);
  });

  it('a replayed payment of an ingest that found an earlier entry answers the very same bytes, note included', async () => {
    const entry = { action: 'model.replayed', payload: { x: 1 } };
    await payFor('/v1/evidence/ingest', entry, 'sealed');
    const url = `${service.url}/v1/evidence/ingest`;
    const init = (payment?: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json', ...(payment ? { 'PAYMENT-SIGNATURE': payment } : {}) }, body: JSON.stringify(entry) });
    const payment = await signPayment(await fetchQuote(url, init()));
    const first = await (await fetch(url, init(payment.header))).text();
    const replay = await (await fetch(url, init(payment.header))).text();
    expect(first).toContain('"already_recorded"');
    expect(replay).toBe(first);
  });

  it('c2pa verify, then its read-back returns the same evidenceCore, digest and signature', async () => {
    const example = findOperation('data.c2pa.verify')!.example;
    const paid = await payFor('/v1/data/c2pa/verify', example, 'evidenceCore');
    expect(paid.record.outcome).toBe('BINDING-MATCH');
    await checkOffline(paid);
    const id = paid.record.attestation_id as string;
    const back = (await (await fetch(`${service.url}/v1/data/c2pa/attestation/${id}`)).json()) as JsonObject;
    expect(back).toMatchObject({ found: true, attestation_id: id, evidenceCore: paid.record, sha256: paid.body.sha256, ed25519Sig: paid.body.ed25519Sig, keyId: paid.body.keyId });
    const missing = await (await fetch(`${service.url}/v1/data/c2pa/attestation/${'0'.repeat(64)}`)).json();
    expect(missing).toEqual({ found: false, attestation_id: '0'.repeat(64) });
    // A tampered copy of the read-back no longer matches the signature it came with.
    const pub = Buffer.from(((await (await fetch(paid.body.publicKeyUrl as string)).json()) as { publicKey: string }).publicKey, 'hex');
    const tampered = { ...paid.record, outcome: 'BINDING-MISMATCH' };
    expect(canonicalSha256(tampered)).not.toBe(back.sha256);
    expect(ed25519.verify(Buffer.from(back.ed25519Sig as string, 'hex'), canonicalBytes(tampered), pub)).toBe(false);
  });

  it('c2pa verify reports a mismatching content hash as BINDING-MISMATCH', async () => {
    const example = findOperation('data.c2pa.verify')!.example as JsonObject;
    const paid = await payFor('/v1/data/c2pa/verify', { ...example, content_hash: { alg: 'sha256', value: 'ab'.repeat(32) } }, 'evidenceCore');
    expect(paid.record.outcome).toBe('BINDING-MISMATCH');
  });

  it('signed snapshot, re-checked on /v1/data/verify', async () => {
    const fetchedAt = Math.floor(Date.now() / 1000) - 90;
    const paid = await payFor(
      '/v1/data/signed-snapshot',
      { series: 'EUR/USD', rows: [{ date: '2025-12-31', value: 1.04 }, { note: 'gap' }], citations: ['https://data.example.org/eurusd', 'not a url'], fetchedAt },
      'evidenceCore',
    );
    expect(paid.record).toMatchObject({ outcome: 'SEALED', rows_count: 1, citations_count: 1, freshness: { tier: 'LIVE', fetchedAt } });
    await checkOffline(paid);
    await expectBodyVerify('/v1/data/verify', paid, [{ stampedAt: (paid.record.stampedAt as number) - 1 }, { rows: [] }, { freshness: { tier: 'FRESH', fetchedAt, age_seconds: 90 } }]);

    const insufficient = await payFor('/v1/data/signed-snapshot', { series: 'EUR/USD', rows: [], citations: [] }, 'evidenceCore');
    expect(insufficient.record).toMatchObject({ outcome: 'INSUFFICIENT-DATA', missing: ['rows', 'citations', 'fetchedAt'], freshness: { tier: 'NOT-PROVIDED' } });
  });
});

describe('Forensics free routes and refusals', () => {
  it('publishes the freshness tier table', async () => {
    const res = await fetch(`${service.url}/v1/data/freshness-tiers`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ freshness: { version: 'freshness-tiers/v1' }, usability: { version: 'snapshot-usability/v2' } });
  });

  it.each([
    ['/v1/evidence/ingest', { actor: 'x' }, 'action'],
    ['/v1/evidence/query', { entryIds: ['nope'] }, 'entryIds.0'],
    ['/v1/data/c2pa/verify', { hard_binding: {}, content_hash: { alg: 'sha256', value: 'zz' } }, 'content_hash.value'],
    ['/v1/data/signed-snapshot', { series: 's', rows: [], citations: [], fetchedAt: 1_767_225_600_000 }, 'fetchedAt'],
  ])('%s answers 422 with the field before any quote', async (path, input, field) => {
    const res = await postTo(service, path, input);
    expect(res.status).toBe(422);
    const body = (await res.json()) as { outcome: string; issues: Array<{ path: string }> };
    expect(body.outcome).toBe('INVALID-INPUT');
    expect(body.issues.map((i) => i.path)).toContain(field);
  });

  it('refuses JSON nested too deep with 422 on the field, never a 500', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const cases: Array<[string, string, string]> = [
      ['/v1/evidence/ingest', `{"action":"x","payload":{"a":${deep}}}`, 'payload'],
      ['/v1/data/signed-snapshot', `{"series":"s","rows":[${deep}],"citations":[]}`, 'rows.0'],
      ['/v1/data/c2pa/verify', `{"hard_binding":{"a":${deep}},"content_hash":{"alg":"sha256","value":"${'ab'.repeat(32)}"}}`, 'hard_binding'],
    ];
    for (const [path, body, field] of cases) {
      const res = await fetch(`${service.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(res.status, path).toBe(422);
      expect(((await res.json()) as { issues: Array<{ path: string }> }).issues[0]!.path).toBe(field);
    }
  });

  it.each(['/v1/evidence/ingest', '/v1/evidence/query', '/v1/data/c2pa/verify', '/v1/data/signed-snapshot'])('%s quotes 402 for a valid unpaid request', async (path) => {
    const id = ['evidence.ingest', 'evidence.query', 'data.c2pa.verify', 'data.signed-snapshot'].find((i) => findOperation(i)!.path === path)!;
    const res = await postTo(service, path, findOperation(id)!.example);
    expect(res.status).toBe(402);
    expect(res.headers.get('payment-required')).toBeTruthy();
  });

  it('documents every forensics route as available in /openapi.json', async () => {
    const doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { 'x-status': string }>> };
    for (const path of ['/v1/evidence/ingest', '/v1/evidence/query', '/v1/data/c2pa/verify', '/v1/data/signed-snapshot']) expect(doc.paths[path]!.post!['x-status']).toBe('available');
    expect(doc.paths['/v1/data/freshness-tiers']!.get!['x-status']).toBe('available');
  });

  it('verify routes answer 422 when a required parameter is absent', async () => {
    const res = await fetch(`${service.url}/v1/evidence/verify?${new URLSearchParams({ body: '{}', sha256: 'x' })}`);
    expect(res.status).toBe(422);
  });
});
