import { randomBytes, randomUUID, verify as edVerify } from 'node:crypto';
import { availableParallelism, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AuditKeys } from '../src/audit/result-check.ts';
import { openEventStore } from '../src/events/open-store.ts';
import { paymentStreamName } from '../src/payments/saga/events.ts';
import { createKeyring, publicKeyFromHex } from '../src/signing/keyring.ts';
import { canonicalBytes } from '../src/signing/rfc8785.ts';
import { seal } from '../src/signing/seal.ts';
import { ed25519Backend, verifyEd25519 as verifyWithLibsodium } from '../src/signing/rfc8032.ts';
import { compiledAudit } from './support/compiled.ts';
import { rate } from './support/load.ts';

/**
 * The audit as an outside auditor runs it (`npm run audit`: compiled, from dist/): public keys
 * only (no secret, so every signature is a full Ed25519 verification), verification on worker
 * threads, the log streamed. Compared with the bare rate of node:crypto Ed25519 verification of
 * the same records on one thread, times the cores (target: >= 0.8 of it), and with the bare rate
 * of the verification the audit uses (libsodium first, src/signing/rfc8032.ts), which
 * says what the audit costs beyond its signatures.
 */
const RESULTS = Number(process.env['AUDIT_BENCH_RESULTS'] ?? 40_000);
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

export default async function run(): Promise<void> {
  const keyring = createKeyring('bench-audit-secret-0123456789abcdef012345');
  const publicOnly: AuditKeys = { keyById: (id) => keyring.keyById(id), history: () => keyring.history() };
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-audit-'));
  try {
    const started = process.hrtime.bigint();
    const writer = await openEventStore({ DATA_DIR: dataDir }, quiet);
    const sample: Array<{ bytes: Buffer; signature: Buffer }> = [];
    for (let i = 0; i < RESULTS; i++) {
      const record = { kind: 'model-eval', attestedAt: 1_700_000_000 + i, claim: { model: 'example-7b', benchmark: 'arc-easy', score: 0.81, run: i } };
      const sealed = seal(keyring, 'veritrack', record);
      if (i < 2_000) sample.push({ bytes: canonicalBytes(record), signature: Buffer.from(sealed.ed25519Sig, 'hex') });
      const stream = paymentStreamName(`0x${randomBytes(20).toString('hex')}`, `0x${randomBytes(32).toString('hex')}`);
      await writer.appendToStream(stream, [
        { id: randomUUID(), type: 'PaymentAuthorized', data: { amount: '10000' } },
        { id: randomUUID(), type: 'PaymentSettled', data: { mode: 'local', demo: true } },
        { id: randomUUID(), type: 'ResultSigned', data: { operation: 'veritrack.attest', keyFamily: 'veritrack', record, ...sealed, signedAt: record.attestedAt } },
      ], { expectedRevision: 'no_stream' });
    }
    await writer.close();
    console.log(`log of ${RESULTS} signed results (${RESULTS * 3} events) written in ${seconds(started).toFixed(1)} s`);

    const publicKey = publicKeyFromHex(keyring.publicKey('veritrack').publicKeyHex);
    const bare = rate((i) => {
      const s = sample[i % sample.length]!;
      edVerify(null, s.bytes, publicKey, s.signature);
    }, 2);
    const publicKeyHex = keyring.publicKey('veritrack').publicKeyHex;
    const bareLibsodium = rate((i) => {
      const s = sample[i % sample.length]!;
      verifyWithLibsodium(s.bytes, s.signature, publicKeyHex);
    }, 2);
    const cores = availableParallelism();
    console.log(`bare node:crypto Ed25519 verify, one thread: ${bare.toFixed(0)}/s; x ${cores} cores = ${(bare * cores).toFixed(0)}/s`);
    console.log(`bare libsodium Ed25519 verify (the audit's, ${ed25519Backend()}), one thread: ${bareLibsodium.toFixed(0)}/s = ${(bareLibsodium / bare).toFixed(2)} x node:crypto; x ${cores} cores = ${(bareLibsodium * cores).toFixed(0)}/s`);

    const { auditEventLog, startSignaturePool, openEventStoreForReading } = await compiledAudit();
    for (const threads of [1, cores]) {
      const store = await openEventStoreForReading({ DATA_DIR: dataDir }, quiet);
      const verifier = startSignaturePool(threads);
      const t0 = process.hrtime.bigint();
      const report = await auditEventLog({ store, keyring: publicOnly, verifier, chainRules: [] });
      const elapsed = seconds(t0);
      await verifier.close();
      await store.close();
      if (!report.ok) throw new Error(`the audit failed: ${JSON.stringify(report.failuresByKind)}`);
      const perSecond = report.results / elapsed;
      console.log(`audit, public keys only, ${threads} verifying thread(s): ${(report.events / elapsed).toFixed(0)} events/s, ${perSecond.toFixed(0)} results/s = ${(perSecond / (bare * cores)).toFixed(2)} of cores x bare node:crypto (target >= 0.8); ${(perSecond / (bareLibsodium * cores)).toFixed(2)} of cores x bare libsodium`);
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;
