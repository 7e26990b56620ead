import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PaymentPayload } from '@x402/core/types';
import { koaBody } from 'koa-body';
import Koa from 'koa';
import { verifyTypedData, type Hex } from 'viem';
import type { EventData, EventStore } from '../../src/events/port.ts';
import type { JsonObject } from '../../src/signing/rfc8785.ts';
import type { TransferAuthorization } from '../../src/payments/settlers/settler.ts';
import type { TokenDomain } from '../../src/payments/x402/eip3009-digest.ts';
import { importCompiled } from './compiled.ts';
import { tokenDomainOf } from './paid-payments.ts';

/**
 * One server of the paid-call benchmark, in its own process, on loopback, with its own fresh
 * durable file log (so that the same pre-signed payments can be spent once in every server):
 *   PAID_CALL_BENCH_SERVER=full - the service as `npm start` composes it, from the modules of dist/ (npm start
 *       runs their bundle: a paid call costs the same there, docs/benchmarks.md), SETTLEMENT=local
 *   PAID_CALL_BENCH_SERVER=bare - Koa + body parser, decode the header (base64, JSON), check
 *       payTo/value/validBefore, hand-built EIP-712 digest, native secp256k1 recovery, ONE
 *       group-committed append (expected revision "no stream" on the payment stream, i.e. the
 *       nonce claim), Ed25519 seal of the record; none of our framework
 *   PAID_CALL_BENCH_SERVER=bare-threaded - bare, but recovering as the service does (on its recovery
 *       thread when calls come together): what the bare pipeline would gain from the same change
 *   PAID_CALL_BENCH_SERVER=viem - bare, but verifying with viem's verifyTypedData
 *   PAID_CALL_BENCH_SERVER=bare-saga - bare, but its one append holds the three events the service's saga
 *       writes, of the same shapes and sizes (the claim with the request's hash, the local settlement,
 *       the sealed result): the bare pipeline doing the service's durable work, and nothing else of it
 *   PAID_CALL_BENCH_SERVER=full-result-only - the service, but its store keeps only the ResultSigned of a
 *       paid call's atomic append, dropping the claim (PaymentAuthorized) and the settlement
 *       (PaymentSettled): not a service anyone should run (nothing would stop a payment being spent
 *       twice), only a measure of what those two events cost, the bare pipeline writing one event
 * Prints `listening <url>` for spawnServer; SIGTERM closes the log and removes its directory.
 */
type Role = 'full' | 'full-result-only' | 'bare' | 'bare-threaded' | 'bare-saga' | 'viem';

// Every role runs the project's code compiled, as `npm start` does, not under tsx; bare and viem
// use the same compiled pieces, so the ratios compare like with like. bench/run.ts builds dist/
// before any server starts: a build here could outlast the start-up window.
const { findOperation } = await importCompiled<typeof import('../../src/catalog/index.ts')>('catalog/index.js');
const { loadSettings } = await importCompiled<typeof import('../../src/config.ts')>('config.js');
const { openEventStore } = await importCompiled<typeof import('../../src/events/open-store.ts')>('events/open-store.js');
const { TRANSFER_WITH_AUTHORIZATION_TYPES, transferAuthorizationDigest } = await importCompiled<typeof import('../../src/payments/x402/eip3009-digest.ts')>('payments/x402/eip3009-digest.js');
const { paymentRequirements, resourceUrl } = await importCompiled<typeof import('../../src/payments/x402/quote.ts')>('payments/x402/quote.js');
const { recoverSigner, recoverSignerOffTheLoop } = await importCompiled<typeof import('../../src/payments/x402/recover-signer.ts')>('payments/x402/recover-signer.js');
const { markExclusiveStore } = await importCompiled<typeof import('../../src/events/sole-writer.ts')>('events/sole-writer.js');
const { createLogger } = await importCompiled<typeof import('../../src/logger.ts')>('logger.js');
const { startService } = await importCompiled<typeof import('../../src/service.ts')>('service.js');
const { createKeyring } = await importCompiled<typeof import('../../src/signing/keyring.ts')>('signing/keyring.js');
const { seal } = await importCompiled<typeof import('../../src/signing/seal.ts')>('signing/seal.js');

const role = process.env['PAID_CALL_BENCH_SERVER'] as Role | undefined;
const ROLES: readonly Role[] = ['full', 'full-result-only', 'bare', 'bare-threaded', 'bare-saga', 'viem'];
if (!ROLES.includes(role as Role)) throw new Error(`PAID_CALL_BENCH_SERVER must be one of ${ROLES.join(', ')}, not ${String(role)}`);

const dataDir = mkdtempSync(join(tmpdir(), `bench-paid-${role}-`));
// The durable file log, whatever the environment says: that is what the issue measures.
const settings = loadSettings({ ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', SETTLEMENT: 'local', EVENTSTORE_URL: undefined });
const log = createLogger(settings);
const store = await openEventStore(settings, log);
let closeServer: () => Promise<void>;
const op = findOperation('veritrack.attest')!;

if (role === 'full' || role === 'full-result-only') {
  const service = await startService(settings, role === 'full' ? store : keepingOnlyResults(store), log);
  closeServer = () => service.close();
  console.log(`listening ${service.url}`);
} else {
  const keyring = createKeyring(settings.ATTESTATION_SECRET!);
  const requirements = paymentRequirements(op, settings);
  const domain = tokenDomainOf(requirements);
  const payTo = requirements.payTo.toLowerCase();
  const app = new Koa();
  app.use(koaBody({ jsonLimit: '1mb' }));
  app.use(async (ctx) => {
    const payload = JSON.parse(Buffer.from(ctx.get('payment-signature'), 'base64').toString('utf8')) as PaymentPayload;
    const { authorization: a, signature } = payload.payload as { authorization: TransferAuthorization; signature: Hex };
    const now = Math.floor(Date.now() / 1000);
    if (a.to.toLowerCase() !== payTo || a.value !== requirements.amount || BigInt(a.validBefore) < BigInt(now + 6)) ctx.throw(402);
    const from = a.from.toLowerCase();
    // bare recovers synchronously, as before: an await would add a turn of the microtask queue to it.
    let valid: boolean;
    if (role === 'viem') valid = await verifyWithViem(domain, a, signature);
    else if (role === 'bare-threaded') valid = (await recoverSignerOffTheLoop(transferAuthorizationDigest(domain, a), signature)) === from;
    else valid = recoverSigner(transferAuthorizationDigest(domain, a), signature) === from;
    if (!valid) ctx.throw(402);
    const stream = `payment-${a.from.toLowerCase()}-${a.nonce.toLowerCase()}`;
    const input = ctx.request.body as { kind: string; claim: JsonObject };
    const record = { kind: input.kind, attestedAt: now, claim: input.claim };
    const sealed = seal(keyring, 'veritrack', record);
    if (role === 'bare-saga') await store.appendToStream(stream, sagaEvents(payload, a, signature, record, sealed, now), { expectedRevision: 'no_stream' });
    else await store.appendToStream(stream, [{ id: randomUUID(), type: 'PaymentSettled', data: { ...a } }], { expectedRevision: 'no_stream' });
    ctx.body = { ...record, ...sealed, resource: resourceUrl(op, '') };
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  closeServer = () => new Promise((resolve) => server.close(() => resolve()));
  console.log(`listening http://127.0.0.1:${(server.address() as { port: number }).port}`);
}

// The soak benchmark asks for the heap that survives a full collection: what the server retains.
const collect = (globalThis as { gc?: () => void }).gc;
if (collect) {
  process.on('SIGUSR2', () => {
    collect();
    console.log(`heap ${process.memoryUsage().heapUsed}`);
  });
}

// Where the server's allocations come from (PAID_CALL_BENCH_ALLOC_PROFILE=<dir>: <dir>/<role>.heapprofile): V8's sampling
// heap profiler, keeping the samples of objects already collected, so that it counts what a call
// allocates and not only what survives (--heap-prof keeps only the survivors).
const allocationProfile = process.env['PAID_CALL_BENCH_ALLOC_PROFILE'];
const allocations = allocationProfile ? new Session() : undefined;
if (allocations) {
  allocations.connect();
  await allocations.post('HeapProfiler.startSampling', { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
}

process.once('SIGTERM', () => {
  void (allocations ? allocations.post('HeapProfiler.stopSampling').then(({ profile }) => writeFileSync(join(allocationProfile!, `${role}.heapprofile`), JSON.stringify(profile))) : Promise.resolve())
    .then(() => closeServer())
    .then(() => store.close())
    .finally(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
});

/**
 * The three events of the service's saga for this call, as it writes them (role bare-saga): the
 * claim naming the request by its hash, the local settlement, the sealed result.
 */
function sagaEvents(payment: PaymentPayload, a: TransferAuthorization, signature: Hex, record: JsonObject, sealed: ReturnType<typeof seal>, now: number): EventData[] {
  const { accepted } = payment;
  const payer = a.from.toLowerCase();
  const nonce = a.nonce.toLowerCase();
  const requestHash = createHash('sha256').update(JSON.stringify(record.claim)).digest('hex');
  const claim = {
    requestHash, operation: op.id, method: op.method, path: op.path, payer, payTo: accepted.payTo.toLowerCase(), amount: accepted.amount, network: accepted.network,
    asset: accepted.asset, nonce, validBefore: a.validBefore, x402Version: payment.x402Version, authorization: { ...a }, signature, authorizedAt: now,
  };
  const transaction = `local-demo:${createHash('sha256').update(`x402-local-settlement\u0000${accepted.network}\u0000${accepted.asset.toLowerCase()}\u0000${payer}\u0000${nonce}`).digest('hex')}`;
  const settlement = { mode: 'local', transaction, network: accepted.network, payer, amount: a.value, demo: true };
  const result = { operation: op.id, keyFamily: 'veritrack', record, sha256: sealed.sha256, ed25519Sig: sealed.ed25519Sig, keyId: sealed.keyId, signedAt: now };
  return [
    { id: randomUUID(), type: 'PaymentAuthorized', data: claim },
    { id: randomUUID(), type: 'PaymentSettled', data: settlement },
    { id: randomUUID(), type: 'ResultSigned', data: result },
  ];
}

/**
 * The store with every multi-event append cut to its ResultSigned events (role full-result-only).
 * Marked as the file log is, this process's alone: the saga then trusts its claim without reading
 * it back, as it does in the service (a read-back would find no claim here).
 */
function keepingOnlyResults(inner: EventStore): EventStore {
  return markExclusiveStore(new Proxy(inner, {
    get(target, property, receiver) {
      if (property === 'appendToStream') {
        const append: EventStore['appendToStream'] = (stream, events, options) =>
          target.appendToStream(stream, events.length > 1 ? events.filter((e) => e.type === 'ResultSigned') : events, options);
        return append;
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }));
}

function verifyWithViem(domain: TokenDomain, a: TransferAuthorization, signature: Hex): Promise<boolean> {
  return verifyTypedData({
    address: a.from,
    domain: { name: domain.name, version: domain.version, chainId: Number(domain.chainId), verifyingContract: domain.verifyingContract as Hex },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: { from: a.from, to: a.to, value: BigInt(a.value), validAfter: BigInt(a.validAfter), validBefore: BigInt(a.validBefore), nonce: a.nonce },
    signature,
  });
}
