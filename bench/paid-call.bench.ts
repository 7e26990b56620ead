import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { koaBody } from 'koa-body';
import Koa from 'koa';
import { verifyTypedData, type Hex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { findOperation } from '../src/catalog/index.ts';
import { loadSettings } from '../src/config.ts';
import { openEventStore } from '../src/events/open-store.ts';
import { chainIdOf, transferAuthorizationDigest, type TokenDomain } from '../src/payments/eip3009-digest.ts';
import { paymentRequirements, resourceUrl } from '../src/payments/quote.ts';
import { recoverSigner } from '../src/payments/recover-signer.ts';
import { createLogger, startService } from '../src/service.ts';
import { createKeyring } from '../src/signing/keyring.ts';
import { seal } from '../src/signing/seal.ts';
import { load } from './support/load.ts';
import { spawnServer } from './support/spawn-server.ts';

/**
 * Paid calls per second over HTTP in local mode, on the durable file log, each with a fresh
 * pre-signed EIP-3009 payment:
 *   full  - the service: decode, verify, saga (claim, settle, sign: three group-committed appends)
 *   bare  - Koa + the same crypto (digest, native recovery, Ed25519 seal) + one group-committed
 *           append, none of our framework: the ceiling the service is measured against
 *   viem  - the bare pipeline verifying with viem's verifyTypedData instead
 * Targets: full >= 0.6 x bare, full >= 5 x viem. The server runs in its own process.
 */
const SECRET = 'bench-attestation-secret-0123456789abcdef';
const ROLE = process.env['PAID_CALL_BENCH_SERVER'];
const PATH = '/v1/veritrack/attest';
const BODY = JSON.stringify({ kind: 'model-eval', claim: { model: 'example-7b', benchmark: 'arc-easy', score: 0.81 } });
const CONCURRENCY = 64;
const SECONDS = 5;
const PAYMENTS = 12_000;

if (ROLE) await serve(ROLE);

export default async function run(): Promise<void> {
  const settings = loadSettings({ DATA_DIR: tmpdir(), LOG_LEVEL: 'silent' });
  const op = findOperation('veritrack.attest')!;
  const requirements = paymentRequirements(op, settings);
  const started = process.hrtime.bigint();
  const headers = presign(requirements, `http://127.0.0.1${PATH}`, PAYMENTS + 3 * 600);
  console.log(`pre-signed ${headers.length} payments in ${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)} s`);

  let offset = 0;
  const measure = async (role: string) => {
    const server = await spawnServer(new URL(import.meta.url), { PAID_CALL_BENCH_SERVER: role, ATTESTATION_SECRET: SECRET });
    try {
      const take = (count: number) => {
        const slice = headers.slice(offset, offset + count);
        offset += count;
        return slice;
      };
      const call = (batch: string[], maxSeconds: number) =>
        load({ url: server.url, method: 'POST', pathOf: () => PATH, bodyOf: () => BODY, headersOf: (i) => ({ 'PAYMENT-SIGNATURE': batch[i]! }), concurrency: CONCURRENCY, maxRequests: batch.length, maxSeconds });
      await call(take(600), 3); // warm-up
      const result = await call(headers.slice(offset), SECONDS);
      offset += result.requests;
      if (Object.keys(result.statuses).some((code) => code !== '200')) throw new Error(`${role}: unexpected statuses ${JSON.stringify(result.statuses)}`);
      return result;
    } finally {
      await server.stop();
    }
  };

  const full = await measure('full');
  const bare = await measure('bare');
  const viem = await measure('viem');
  console.log(`bare pipeline (Koa + same crypto + 1 group-committed append): ${bare.perSecond.toFixed(0)}/s (${bare.requests} calls)`);
  console.log(`bare pipeline verifying with viem verifyTypedData:           ${viem.perSecond.toFixed(0)}/s (${viem.requests} calls)`);
  console.log(`the service, POST ${PATH} paid in local mode, file log:   ${full.perSecond.toFixed(0)}/s (${full.requests} calls)`);
  console.log(`ratio service / bare: ${(full.perSecond / bare.perSecond).toFixed(2)} (target >= 0.6)`);
  console.log(`ratio service / viem: ${(full.perSecond / viem.perSecond).toFixed(2)} (target >= 5)`);
}

/** Pre-signs `count` payments with the native signer (viem would take minutes for this many). */
function presign(requirements: ReturnType<typeof paymentRequirements>, resource: string, count: number): string[] {
  const native = createRequire(import.meta.url)('secp256k1/bindings.js') as {
    ecdsaSign(message: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  };
  const privateKey = randomBytes(32);
  const from = privateKeyToAddress(`0x${privateKey.toString('hex')}`);
  const extra = requirements.extra as { name: string; version: string };
  const domain: TokenDomain = { name: extra.name, version: extra.version, chainId: chainIdOf(requirements.network), verifyingContract: requirements.asset };
  const validBefore = String(Math.floor(Date.now() / 1000) + 3600);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const authorization = { from, to: requirements.payTo as Hex, value: requirements.amount, validAfter: '0', validBefore, nonce: `0x${randomBytes(32).toString('hex')}` as Hex };
    const { signature, recid } = native.ecdsaSign(transferAuthorizationDigest(domain, authorization), privateKey);
    const payload: PaymentPayload = {
      x402Version: 2,
      resource: { url: resource, description: '', mimeType: 'application/json' },
      accepted: requirements,
      payload: { authorization, signature: `0x${Buffer.from(signature).toString('hex')}${(27 + recid).toString(16)}` },
    };
    out.push(encodePaymentSignatureHeader(payload));
  }
  return out;
}

async function serve(role: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), `bench-paid-${role}-`));
  const settings = loadSettings({ ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', SETTLEMENT: 'local' });
  const log = createLogger(settings);
  const store = await openEventStore(settings, log);
  let close: () => Promise<void>;
  if (role === 'full') {
    const service = await startService(settings, store, log);
    console.log(`listening ${service.url}`);
    close = () => service.close();
  } else {
    const keyring = createKeyring(settings.ATTESTATION_SECRET!);
    const op = findOperation('veritrack.attest')!;
    const requirements = paymentRequirements(op, settings);
    const extra = requirements.extra as { name: string; version: string };
    const domain: TokenDomain = { name: extra.name, version: extra.version, chainId: chainIdOf(requirements.network), verifyingContract: requirements.asset };
    const app = new Koa();
    app.use(koaBody({ jsonLimit: '1mb' }));
    app.use(async (ctx) => {
      const payload = JSON.parse(Buffer.from(ctx.get('payment-signature'), 'base64').toString('utf8')) as PaymentPayload;
      const { authorization: a, signature } = payload.payload as { authorization: { from: Hex; to: Hex; value: string; validAfter: string; validBefore: string; nonce: Hex }; signature: Hex };
      const now = Math.floor(Date.now() / 1000);
      if (a.to.toLowerCase() !== requirements.payTo.toLowerCase() || a.value !== requirements.amount || BigInt(a.validBefore) < BigInt(now + 6)) ctx.throw(402);
      const valid =
        role === 'viem'
          ? await verifyTypedData({
              address: a.from,
              domain: { name: domain.name, version: domain.version, chainId: Number(domain.chainId), verifyingContract: domain.verifyingContract as Hex },
              types: { TransferWithAuthorization: [{ name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' }] },
              primaryType: 'TransferWithAuthorization',
              message: { from: a.from, to: a.to, value: BigInt(a.value), validAfter: BigInt(a.validAfter), validBefore: BigInt(a.validBefore), nonce: a.nonce },
              signature,
            })
          : recoverSigner(transferAuthorizationDigest(domain, a), signature) === a.from.toLowerCase();
      if (!valid) ctx.throw(402);
      await store.appendToStream(`payment-${a.from.toLowerCase()}-${a.nonce}`, [{ id: randomUUID(), type: 'PaymentSettled', data: { ...a } }], { expectedRevision: 'no_stream' });
      const input = ctx.request.body as { kind: string; claim: Record<string, unknown> };
      const record = { kind: input.kind, attestedAt: now, claim: input.claim };
      ctx.body = { ...record, ...seal(keyring, 'veritrack', record), resource: resourceUrl(op, '') };
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const address = server.address() as { port: number };
    console.log(`listening http://127.0.0.1:${address.port}`);
    close = () => new Promise((resolve) => server.close(() => resolve()));
  }
  process.once('SIGTERM', () => {
    void close()
      .then(() => store.close())
      .then(() => rmSync(dataDir, { recursive: true, force: true }))
      .then(() => process.exit(0));
  });
}
