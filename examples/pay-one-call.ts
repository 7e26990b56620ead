/**
 * Pays one call with the official x402 client and checks the signed result offline.
 *
 *   npm start                                   # in another terminal (local settlement: no funds move)
 *   npx tsx examples/pay-one-call.ts            # BASE_URL defaults to http://localhost:4021
 *   PRIVATE_KEY=0x... npx tsx examples/pay-one-call.ts
 *
 * With SETTLEMENT=facilitator or onchain on the server, the wallet must hold USDC on Base.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { canonicalBytes } from '../src/signing/rfc8785.ts';

const baseUrl = (process.env['BASE_URL'] ?? 'http://localhost:4021').replace(/\/+$/, '');

// Before anything else: a refused connection (the service not started, or still compiling
// dist/ on its first start) would otherwise end in fetch's stack trace.
try {
  await fetch(`${baseUrl}/health`);
} catch {
  console.error(`no service answers at ${baseUrl}: start it with \`npm start\` in another terminal, wait for its "Listening on" line and run this again (or set BASE_URL)`);
  process.exit(1);
}
const account = privateKeyToAccount((process.env['PRIVATE_KEY'] as Hex | undefined) ?? generatePrivateKey());

// The official client refuses to pay more than $1 per call unless told otherwise; some routes
// cost up to $29, so raise the cap to what you are prepared to pay for one call.
const client = new x402Client().register('eip155:8453', new ExactEvmScheme(account)).setSpendControls({ maxAmountPerPayment: '$29' });
const payingFetch = wrapFetchWithPayment(fetch, client);

const response = await payingFetch(`${baseUrl}/v1/veritrack/attest`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ kind: 'model-eval', claim: { model: 'example-7b', benchmark: 'arc-easy', score: 0.81 } }),
});
if (response.status !== 200) throw new Error(`expected 200, got ${response.status}: ${await response.text()}`);

const settlement = decodePaymentResponseHeader(response.headers.get('PAYMENT-RESPONSE')!);
const result = (await response.json()) as Record<string, unknown> & { sha256: string; ed25519Sig: string; keyId: string; publicKeyUrl: string };
console.log(`paid by ${account.address}: settlement ${settlement.transaction} on ${settlement.network}`);

// veritrack returns the record's members at the top level, beside the seal and two URLs.
const { sha256, ed25519Sig, keyId, publicKeyUrl, verifyUrl: _verifyUrl, ...record } = result;
const bytes = canonicalBytes(record); // RFC 8785
const digestOk = createHash('sha256').update(bytes).digest('hex') === sha256;

const published = (await (await fetch(publicKeyUrl)).json()) as { publicKey: string; keyId: string };
const rawKey = Buffer.from(published.publicKey, 'hex');
const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: rawKey.toString('base64url') }, format: 'jwk' });
const keyIdOk = createHash('sha256').update(rawKey).digest('hex').slice(0, 16) === keyId && published.keyId === keyId;
const signatureOk = verify(null, bytes, publicKey, Buffer.from(ed25519Sig, 'hex'));

console.log(JSON.stringify(record, null, 2));
console.log(`sha256 ${digestOk ? 'matches' : 'DOES NOT match'}, keyId ${keyIdOk ? 'matches' : 'DOES NOT match'}, Ed25519 signature ${signatureOk ? 'valid' : 'INVALID'}`);
if (!digestOk || !keyIdOk || !signatureOk) process.exit(1);
