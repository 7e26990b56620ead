import { generateKeyPairSync, sign } from 'node:crypto';
import { createOfferEIP712, createReceiptEIP712, createReceiptJWS } from '@x402/extensions/offer-receipt';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { checkOfferOrReceipt, type ReceiptCheckInput } from './engine.ts';
import { parseCompactJws } from './offer-receipt-signatures.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';

const account = privateKeyToAccount(generatePrivateKey());
const signTypedData = (p: Parameters<typeof account.signTypedData>[0]) => account.signTypedData(p);
const RESOURCE = 'https://api.example.com/v1/data';
const requirements = { scheme: 'exact', network: 'eip155:8453', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0x000000000000000000000000000000000000dEaD', amount: '250000' };
const PAYER = '0x1111111111111111111111111111111111111111';

const check = (input: ReceiptCheckInput) => checkOfferOrReceipt(input, { now: 1_767_225_600 });
const statusOf = (r: JsonObject) => Object.fromEntries((r.checks as Array<{ id: string; status: string }>).map((c) => [c.id, c.status]));
const part = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const failed = (r: JsonObject) => Object.entries(statusOf(r)).filter(([, s]) => s === 'fail').map(([id]) => id);

async function offer(): Promise<JsonObject> {
  return (await createOfferEIP712(RESOURCE, { acceptIndex: 0, ...requirements, offerValiditySeconds: 300 }, signTypedData as never)) as unknown as JsonObject;
}

describe('bureau receipt check', () => {
  it('an EIP-712 offer signed by the extension passes every check, signer recovered', async () => {
    const signed = await offer();
    const r = check({ artefact: 'offer', signed, requirements, resourceUrl: RESOURCE, signer: { address: account.address } });
    expect(failed(r)).toEqual([]);
    expect(r).toMatchObject({ outcome: 'CONFORMANT', format: 'eip712', recoveredSigner: account.address.toLowerCase(), ruleset: { id: 'x402-offer-receipt-conformance', version: '3' } });
  });

  it('an EIP-712 receipt passes; the wrong signer, payer or network fail the right check', async () => {
    const signed = (await createReceiptEIP712({ resourceUrl: RESOURCE, payer: PAYER, network: 'eip155:8453', transaction: '0xabc' }, signTypedData as never)) as unknown as JsonObject;
    const offerPayload = (await offer()).payload as JsonObject;
    expect(failed(check({ artefact: 'receipt', signed, offer: offerPayload, payer: PAYER, signer: { address: account.address } }))).toEqual([]);
    expect(failed(check({ artefact: 'receipt', signed, signer: { address: PAYER } }))).toEqual(['ORC-SIG-001']);
    expect(failed(check({ artefact: 'receipt', signed, payer: '0x2222222222222222222222222222222222222222' }))).toEqual(['ORC-CON-001']);
    const tampered = { ...signed, payload: { ...(signed.payload as JsonObject), network: 'eip155:1' } };
    expect(failed(check({ artefact: 'receipt', signed: tampered, offer: offerPayload, signer: { address: account.address } }))).toEqual(['ORC-CON-001', 'ORC-SIG-001']);
  });

  it('an EIP-712 signature that recovers to no address fails even when no signer is supplied; a recoverable one is not-provided and names its signer', async () => {
    const signed = (await createReceiptEIP712({ resourceUrl: RESOURCE, payer: PAYER, network: 'eip155:8453', transaction: '0xabc' }, signTypedData as never)) as unknown as JsonObject;
    const zeroSigned = { ...signed, signature: `0x${'00'.repeat(65)}` };
    const bogus = check({ artefact: 'receipt', signed: zeroSigned, payer: PAYER });
    expect(failed(bogus)).toEqual(['ORC-SIG-001']);
    expect(bogus).toMatchObject({ outcome: 'NON-CONFORMANT', defects: ['ORC-SIG-001'], evidence_source: 'caller-supplied' });
    const unchecked = check({ artefact: 'receipt', signed, payer: PAYER });
    expect(statusOf(unchecked)['ORC-SIG-001']).toBe('not-provided');
    expect(unchecked).toMatchObject({ outcome: 'CONFORMANT', recoveredSigner: account.address.toLowerCase() });
  });

  it('a JWS receipt signed with EdDSA verifies with the supplied key', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const hex = publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
    const signer = { kid: 'did:web:api.example.com#key-1', format: 'jws' as const, algorithm: 'EdDSA', sign: async (bytes: Uint8Array) => sign(null, bytes, privateKey).toString('base64url') };
    const signed = (await createReceiptJWS({ resourceUrl: RESOURCE, payer: PAYER, network: 'eip155:8453' }, signer)) as unknown as JsonObject;
    expect(failed(check({ artefact: 'receipt', signed, signer: { publicKey: hex } }))).toEqual([]);
    const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
    expect(failed(check({ artefact: 'receipt', signed, signer: { publicKey: other } }))).toEqual(['ORC-SIG-001']);
    expect(statusOf(check({ artefact: 'receipt', signed }))['ORC-SIG-001']).toBe('not-provided');
  });

  it('defects in the envelope and payload fail exactly their checks', async () => {
    const signed = await offer();
    const payload = signed.payload as JsonObject;
    expect(failed(check({ artefact: 'offer', signed: { ...signed, format: 'cose' } }))).toEqual(['ORC-FMT-001']);
    expect(failed(check({ artefact: 'offer', signed: { ...signed, payload: { ...payload, amount: '0.25' } } }))).toEqual(['ORC-AMT-001']);
    expect(failed(check({ artefact: 'offer', signed: { ...signed, payload: { ...payload, network: 'base' } } }))).toEqual(['ORC-NET-001']);
    const { payTo: _dropped, ...withoutPayTo } = payload;
    expect(failed(check({ artefact: 'offer', signed: { ...signed, payload: withoutPayTo } }))).toEqual(['ORC-REQ-001']);
    expect(failed(check({ artefact: 'offer', signed, requirements: { ...requirements, amount: '1' } }))).toEqual(['ORC-CON-001']);
    expect(check({ artefact: 'offer', signed: { format: 'jws', signature: 'not-a-jws' } }).outcome).toBe('NON-CONFORMANT');
  });
});

describe('compact JWS parts', () => {
  const part = (bytes: Buffer) => bytes.toString('base64url');
  const header = part(Buffer.from('{"alg":"EdDSA"}'));
  const signature = part(Buffer.alloc(64));
  const withPayload = (text: string) => parseCompactJws(`${header}.${part(Buffer.from(text))}.${signature}`);

  it('a header or payload that is not UTF-8 JSON makes no JWS (RFC 7515), rather than JSON with U+FFFD in it', () => {
    expect(withPayload('{"a":"b"}')).toMatchObject({ ok: true, jws: { payload: { a: 'b' } } });
    expect(parseCompactJws(`${header}.${part(Buffer.from('{"a":"caf\xe9"}', 'latin1'))}.${signature}`)).toMatchObject({ ok: false, defect: expect.stringMatching(/^the JWS payload is not UTF-8: the byte 0xE9/) });
  });

  it('a payload or header that is not I-JSON is a defect naming the member, never a value the issuer did not sign', () => {
    expect(withPayload('{"issuedAt":1e400}')).toEqual({ ok: false, defect: 'the JWS payload is not I-JSON (RFC 7493), so it cannot be carried exactly: issuedAt: number 1e400 overflows: send it as a string' });
    expect(withPayload('{"n":1e-400}')).toMatchObject({ ok: false, defect: expect.stringContaining('n: number 1e-400 underflows to 0') });
    expect(withPayload('{"big":123456789012345678901234567890}')).toMatchObject({ ok: false, defect: expect.stringContaining('big: ') });
    expect(withPayload('{"a":"\\ud800"}')).toMatchObject({ ok: false, defect: expect.stringContaining('a: lone surrogate') });
    expect(withPayload('{"__proto__":{"injected":true}}')).toMatchObject({ ok: false, defect: expect.stringContaining('__proto__: the member name "__proto__" is refused') });
    expect(parseCompactJws(`${part(Buffer.from('{"alg":"EdDSA","alg":"none"}'))}.${part(Buffer.from('{}'))}.${signature}`)).toMatchObject({ ok: false, defect: expect.stringMatching(/^the JWS header is not I-JSON .*duplicate member name "alg"/) });
    // The payload sits one level down in the signed record, which the verify route takes 32 deep.
    expect(withPayload(`${'{"a":'.repeat(31)}1${'}'.repeat(31)}`)).toMatchObject({ ok: true });
    expect(withPayload(`${'{"a":'.repeat(32)}1${'}'.repeat(32)}`)).toEqual({ ok: false, defect: 'the JWS payload must not nest deeper than 31 levels' });
    expect(withPayload('[1]')).toEqual({ ok: false, defect: 'the JWS payload is not a JSON object' });
  });
});

describe('receipt check of a JWS payload that is not I-JSON', () => {
  it('fails the envelope check with the reason and carries no payload; the other checks are not assessed', () => {
    const r = check({ artefact: 'receipt', signed: { format: 'jws', signature: `${part('{"alg":"EdDSA"}')}.${part('{"n":1e-400,"big":123456789012345678901234567890}')}.${Buffer.alloc(64).toString('base64url')}` }, payer: PAYER, signer: { publicKey: '00'.repeat(32) } });
    expect(r).toMatchObject({ outcome: 'NON-CONFORMANT', payload: null, defects: ['ORC-FMT-001'], ruleset: { version: '3' } });
    expect(statusOf(r)).toEqual({ 'ORC-FMT-001': 'fail', 'ORC-REQ-001': 'not-provided', 'ORC-NET-001': 'not-provided', 'ORC-AMT-001': 'not-provided', 'ORC-CON-001': 'not-provided', 'ORC-SIG-001': 'not-provided' });
  });
});
