/**
 * `npm run audit -- --data-dir DIR`: replays the whole event log (the file log in DIR, or
 * EventStoreDB when EVENTSTORE_URL is set), re-verifies every signed result, saga and hash chain,
 * prints a summary, and exits 1 on any failure (2 when the audit cannot run at all).
 */
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { openEventStoreForReading } from '../events/open-store.ts';
import { stderrLogger } from '../events/file-log/logger.ts';
import { MissingSecretError, resolveAttestationSecret } from '../signing/keyring.ts';
import { loadKeyring } from '../key-generations.ts';
import { auditEventLog } from './audit.ts';
import { formatReport } from './report.ts';
import { auditRules } from '../catalog/index.ts';

const USAGE = 'usage: npm run audit -- [--data-dir DIR]   (DATA_DIR, EVENTSTORE_URL and ATTESTATION_SECRET are read from the environment)';

async function main(): Promise<number> {
  let dataDir: string;
  try {
    const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, help: { type: 'boolean' } }, strict: true });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    dataDir = values['data-dir'] ?? process.env.DATA_DIR ?? './data';
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const eventStoreUrl = process.env.EVENTSTORE_URL || undefined;
  // An audit reads; it never writes a new secret into the directory it audits.
  let secret;
  try {
    secret = resolveAttestationSecret(process.env.ATTESTATION_SECRET, dataDir, { mayGenerate: false });
  } catch (err) {
    if (!(err instanceof MissingSecretError)) throw err;
    console.error(`audit: no ATTESTATION_SECRET and no usable secret in ${dataDir}: ${err.message}`);
    return 2;
  }
  const keyring = loadKeyring(secret.secret, dataDir);
  const quietLog = { ...stderrLogger, info: () => {} };
  const store = await openEventStoreForReading({ EVENTSTORE_URL: eventStoreUrl, DATA_DIR: dataDir }, quietLog);
  try {
    const head = await store.headPosition();
    const bar = process.stdout.isTTY && head !== undefined
      ? new cliProgress.SingleBar({ format: 'replaying [{bar}] {percentage}% | {events} events | {rate} events/s', hideCursor: true }, cliProgress.Presets.shades_classic)
      : undefined;
    const started = Date.now();
    bar?.start(Number(head ?? 0n) + 1, 0, { events: 0, rate: 0 });
    const report = await auditEventLog({
      store,
      keyring,
      chainRules: auditRules,
      progressEvery: 5000,
      onProgress: (events, position) => {
        const seconds = Math.max((Date.now() - started) / 1000, 0.001);
        bar?.update(Number(position) + 1, { events, rate: Math.round(events / seconds) });
      },
    });
    bar?.stop();
    console.log(formatReport(report, { source: eventStoreUrl ? 'EventStoreDB' : dataDir, seconds: (Date.now() - started) / 1000 }));
    return report.ok ? 0 : 1;
  } finally {
    await store.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`audit could not run: ${(err as Error).message}`);
    process.exit(2);
  },
);
