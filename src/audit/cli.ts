/**
 * `npm run audit -- --data-dir DIR [--keys history.json] [--threads N]`: replays the whole event
 * log (the file log in DIR, or EventStoreDB when EVENTSTORE_URL is set), re-verifies every signed
 * result, saga and hash chain, prints a summary, and exits 1 on any failure (2 when the audit
 * cannot run at all). With --keys it needs no secret: the public keys of a saved key history.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import cliProgress from 'cli-progress';
import { eventLogDirectory, openEventStoreForReading } from '../events/open-store.ts';
import { stderrLogger } from '../events/file-log/logger.ts';
import { MissingSecretError, resolveAttestationSecret } from '../signing/keyring.ts';
import { loadKeyring } from '../key-generations.ts';
import { auditEventLog, type AuditReport } from './audit.ts';
import type { IndexCheckReport } from '../events/file-log/index-check.ts';
import { formatReport } from './report.ts';
import { auditKeysFromHistoryFile } from './key-history-file.ts';
import type { AuditKeys } from './result-check.ts';
import { startSignaturePool } from './signature-pool.ts';
import { ed25519Backend } from '../signing/rfc8032.ts';
import { checkIndexOnThread } from './index-check-thread.ts';
import { LeafStore } from '../transparency/leaf-store.ts';
import { auditRules } from '../catalog/index.ts';

const USAGE = `usage: npm run audit -- [--data-dir DIR] [--keys HISTORY.json] [--threads N]
  --keys     the public keys to check against, as GET /v1/keys/history answers them (no secret needed);
             without it, the keys are derived from ATTESTATION_SECRET or the directory's secret
  --threads  worker threads verifying signatures (default: one per core)
DATA_DIR, EVENTSTORE_URL and ATTESTATION_SECRET are read from the environment.`;

const ED25519_LIBRARY = {
  libsodium: "libsodium, each refusal asked of node:crypto again (node:crypto's verdicts)",
  'node:crypto': 'node:crypto (libsodium did not load here)',
} as const;

async function main(): Promise<number> {
  let dataDir: string;
  let keysFile: string | undefined;
  let threads: number;
  try {
    const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, keys: { type: 'string' }, threads: { type: 'string' }, help: { type: 'boolean' } }, strict: true });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    dataDir = values['data-dir'] ?? (process.env.DATA_DIR || './data');
    keysFile = values.keys;
    threads = values.threads === undefined ? availableParallelism() : Number(values.threads);
    if (!Number.isInteger(threads) || threads < 1 || threads > 256) throw new Error(`--threads takes a whole number from 1 to 256, not ${values.threads}`);
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const eventStoreUrl = process.env.EVENTSTORE_URL || undefined;
  let keys: AuditKeys;
  if (keysFile !== undefined) {
    try {
      keys = auditKeysFromHistoryFile(keysFile);
    } catch (err) {
      console.error(`audit: ${(err as Error).message}`);
      return 2;
    }
  } else {
    // An audit reads; it never writes a new secret into the directory it audits, nor makes one.
    if (!process.env.ATTESTATION_SECRET && !existsSync(dataDir)) {
      console.error(`audit: there is no data directory at ${dataDir} (set DATA_DIR or --data-dir to the service's), and no --keys or ATTESTATION_SECRET to audit with instead`);
      return 2;
    }
    let secret;
    try {
      secret = resolveAttestationSecret(process.env.ATTESTATION_SECRET, dataDir, { mayGenerate: false });
    } catch (err) {
      if (!(err instanceof MissingSecretError)) throw err;
      console.error(`audit: no --keys, no ATTESTATION_SECRET and no usable secret in ${dataDir}: ${err.message}`);
      return 2;
    }
    keys = loadKeyring(secret.secret, dataDir);
  }
  const quietLog = { ...stderrLogger, info: () => {} };
  const store = await openEventStoreForReading({ EVENTSTORE_URL: eventStoreUrl, DATA_DIR: dataDir }, quietLog);
  const verifier = startSignaturePool(threads);
  const resultStore = openResultStore(dataDir);
  try {
    const head = await store.headPosition();
    const bar = process.stdout.isTTY && head !== undefined
      ? new cliProgress.SingleBar({ format: 'replaying [{bar}] {percentage}% | {events} events | {rate} events/s', hideCursor: true }, cliProgress.Presets.shades_classic)
      : undefined;
    const started = Date.now();
    // The file log's index on disk, checked against the segments read directly, beside the replay.
    const indexCheck = eventStoreUrl ? Promise.resolve(undefined) : checkIndexOnThread(eventLogDirectory(dataDir));
    // Awaited below; a failure before then must not go unhandled.
    indexCheck.catch(() => {});
    bar?.start(Number(head ?? 0n) + 1, 0, { events: 0, rate: 0 });
    const report = await auditEventLog({
      store,
      keyring: keys,
      verifier,
      chainRules: auditRules,
      ...(resultStore ? { resultStore } : {}),
      progressEvery: 5000,
      onProgress: (events, position) => {
        const seconds = Math.max((Date.now() - started) / 1000, 0.001);
        bar?.update(Number(position) + 1, { events, rate: Math.round(events / seconds) });
      },
    });
    bar?.stop();
    const index = await indexCheck;
    if (index) withIndexFindings(report, index);
    console.log(formatReport(report, { source: eventStoreUrl ? 'EventStoreDB' : dataDir, seconds: (Date.now() - started) / 1000, threads, ed25519: ED25519_LIBRARY[ed25519Backend()], keys: keysFile === undefined ? 'derived from the secret' : `public keys of ${keysFile}` }));
    return report.ok ? 0 : 1;
  } finally {
    await verifier.close();
    await store.close();
    await resultStore?.close();
  }
}

/** The service's result log store, read as it is, when there is one to check. */
function openResultStore(dataDir: string): LeafStore | undefined {
  try {
    return LeafStore.openForReading(join(dataDir, 'result-log', 'store'));
  } catch (err) {
    console.error(`audit: the result log's store cannot be read (${(err as Error).message}); it is not checked (the service rebuilds it at its next start)`);
    return undefined;
  }
}

/** Index mismatches are audit failures of their own kind, counted and listed with the others. */
function withIndexFindings(report: AuditReport, index: IndexCheckReport): void {
  report.indexChecked = index.checked;
  if (index.mismatchCount === 0) return;
  report.ok = false;
  report.failureCount += index.mismatchCount;
  report.failuresByKind['event-index'] = index.mismatchCount;
  report.failures.push(...index.mismatches.map((m) => ({ kind: 'event-index', stream: 'the index on disk', position: BigInt(m.position), message: m.message })));
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`audit could not run: ${(err as Error).message}`);
    process.exit(2);
  },
);
