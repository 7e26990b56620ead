import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { AuditKeys } from '../src/audit/result-check.ts';
import { auditRules, findOperation } from '../src/catalog/index.ts';
import { loadSettings } from '../src/config.ts';
import { paymentRequirements } from '../src/payments/x402/quote.ts';
import { loadKeyring } from '../src/key-generations.ts';
import { load, type LoadResult } from './support/load.ts';
import { attestBody, ATTEST_PATH, presignPayments } from './support/paid-payments.ts';
import { compiledAudit, SERVICE_ENTRY } from './support/compiled.ts';
import { memoryOf, writtenBytesOf } from './support/proc.ts';

/**
 * How cost grows with the log: the service as `npm start` runs it (`node dist/bundle/main.js`, file log,
 * local settlement) is grown by real paid calls to logs of SCALE_EVENTS events (default 10,000,
 * 100,000 and 1,000,000; three events a paid call). At each size it is stopped and started again,
 * and the bench prints the start-up time until /health answers and RSS after start (once checking
 * every frame of the log, once reading only what follows the index checkpoint), the p50 and p99
 * latency of 2,000 paid calls (16 in flight) on the restarted service, the time of the first corpus
 * page after that start (GET /v1/bureau/corpus, which once read the whole log), and the audit's rate over
 * the whole log with public keys only (all cores). Not part of `npm test`: the largest size
 * takes minutes. SCALE_DATA_DIR=<dir>: grow that directory and keep it (a later run starts from
 * the log it holds), to look at a large log without building it again.
 */
const SECRET = 'bench-scale-secret-0123456789abcdef0123456';
const PATH = ATTEST_PATH;
/** Paid calls made so far: each attests a claim of its own (attestBody), so that the results differ, as in use. */
let callsMade = 0;
const PORT = 4790;
const GROW_BATCH = 20_000;
const PROBE_CALLS = 2_000;
const root = new URL('..', import.meta.url).pathname;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

interface Running {
  child: ChildProcess;
  startMs: number;
  rssMb: number;
  events: number;
}

export default async function run(): Promise<void> {
  const sizes = (process.env['SCALE_EVENTS'] ?? '10000,100000,1000000').split(',').map(Number);
  const keptDir = process.env['SCALE_DATA_DIR'];
  if (keptDir) mkdirSync(keptDir, { recursive: true });
  const dataDir = keptDir ?? mkdtempSync(join(tmpdir(), 'bench-scale-'));
  const env = { DATA_DIR: dataDir, ATTESTATION_SECRET: SECRET, SETTLEMENT: 'local', HOST: '127.0.0.1', PORT: String(PORT), LOG_LEVEL: 'info' };
  const requirements = paymentRequirements(findOperation('veritrack.attest')!, loadSettings(env));
  const url = `http://127.0.0.1:${PORT}`;
  console.log('events at start   start-up, RSS after start (EVENT_LOG_VERIFY=all | =checkpoint)   paid call p50 / p99   audit of the log after the calls (public keys, all cores)');
  try {
    let service = await start(env);
    for (const size of sizes) {
      while (service.events + 3 <= size) {
        const calls = Math.min(GROW_BATCH, Math.ceil((size - service.events) / 3));
        const grown = await paidCalls(url, presignPayments(requirements, `${url}${PATH}`, calls), 64);
        service.events += 3 * (grown.statuses[200] ?? 0);
        if ((grown.statuses[200] ?? 0) === 0) throw new Error(`no paid call succeeded while growing the log: ${JSON.stringify(grown.statuses)}`);
      }
      await stop(service);
      // Both ways of opening the log: every frame's checksum checked, or only the index's tail read.
      const tailOnly = await start({ ...env, EVENT_LOG_VERIFY: 'checkpoint' });
      await stop(tailOnly);
      service = await start(env);
      const eventsAtStart = service.events;
      const corpusMs = await firstRequestMs(`${url}/v1/bureau/corpus`);
      const payments = presignPayments(requirements, `${url}${PATH}`, PROBE_CALLS);
      const writtenBefore = writtenBytesOf(service.child.pid!);
      const probe = await paidCalls(url, payments, 16);
      const writtenPerCall = (writtenBytesOf(service.child.pid!) - writtenBefore) / Math.max(1, probe.statuses[200] ?? 0);
      service.events += 3 * (probe.statuses[200] ?? 0);
      await stop(service);
      const audit = await auditRate(dataDir);
      const sorted = [...probe.latenciesMs].sort((a, b) => a - b);
      const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
      console.log(
        `${String(eventsAtStart).padStart(15)}  ${(service.startMs / 1000).toFixed(2).padStart(6)} s, ${service.rssMb.toFixed(0).padStart(4)} MB | ${(tailOnly.startMs / 1000).toFixed(2).padStart(6)} s, ${tailOnly.rssMb.toFixed(0).padStart(4)} MB     ` +
          `${pct(50).toFixed(1).padStart(6)} / ${pct(99).toFixed(1).padStart(6)} ms     ${audit.events} events at ${audit.eventsPerSecond.toFixed(0)}/s, ${audit.resultsPerSecond.toFixed(0)} results/s`,
      );
      console.log(`${' '.repeat(17)}the first GET /v1/bureau/corpus after the start: ${corpusMs.toFixed(0)} ms (the corpus follows the log; before 2026-11-28 this request read the whole log)`);
      console.log(`${' '.repeat(17)}the audit checked the result log's store too: its ${audit.storeLeaves} leaves, their nodes and its ${audit.digestRuns} digest runs`);
      console.log(`${' '.repeat(17)}disk written per paid call ${(writtenPerCall / 1024).toFixed(1)} KiB; on disk: event log ${megabytes(dataDir, 'events', /\.segment$/)} MB, its index ${megabytes(dataDir, 'events/index')} MB, the result log's store ${megabytes(dataDir, 'result-log/store')} MB`);
      service = await start(env);
    }
    await stop(service);
  } finally {
    if (!keptDir) rmSync(dataDir, { recursive: true, force: true });
  }
  console.log('targets: start-up < 3 s and RSS < 200 MB at 1M events; paid-call latency and the audit rate flat as the log grows');
}

/** Starts the service as `npm start` runs it and waits for /health; the log's size comes from its "event log opened" line. */
async function start(env: Record<string, string>): Promise<Running> {
  const started = performance.now();
  const child = spawn(process.execPath, [SERVICE_ENTRY], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'ignore'] });
  let events = 0;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const opened = /"msg":"event log opened"/.test(line) ? /"events":(\d+)/.exec(line) : null;
    if (opened) events = Number(opened[1]);
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode} while starting`);
    if (performance.now() - started > 300_000) throw new Error('the service did not answer /health within 300 s');
    if (await fetch(`http://127.0.0.1:${env['PORT']}/health`).then((r) => r.ok, () => false)) break;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const startMs = performance.now() - started;
  return { child, startMs, rssMb: memoryOf(child.pid!).rss, events };
}

/** How long one GET takes, answered 200. */
async function firstRequestMs(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  await response.arrayBuffer();
  return performance.now() - started;
}

/**
 * MB the files of a directory under DATA_DIR take on disk (those whose name matches, if given):
 * blocks allocated, not lengths, since the index's file is sparse beyond its data.
 */
function megabytes(dataDir: string, sub: string, name?: RegExp): string {
  const dir = join(dataDir, sub);
  const bytes = readdirSync(dir)
    .filter((file) => !name || name.test(file))
    .reduce((sum, file) => sum + 512 * statSync(join(dir, file)).blocks, 0);
  return (bytes / 1e6).toFixed(0);
}

async function stop(service: Running): Promise<void> {
  const exited = new Promise((resolve) => service.child.once('exit', resolve));
  service.child.kill('SIGTERM');
  await exited;
}

function paidCalls(url: string, payments: string[], concurrency: number): Promise<LoadResult> {
  return load({
    url,
    method: 'POST',
    pathOf: () => PATH,
    bodyOf: () => attestBody(callsMade++),
    headersOf: (i) => ({ 'PAYMENT-SIGNATURE': payments[i]! }),
    concurrency,
    maxRequests: payments.length,
    maxSeconds: 600,
  });
}

/**
 * The whole log audited as an outside auditor would (`npm run audit`, compiled): public keys only,
 * a verifying thread per core, the result log's store (leaves, nodes, digest runs) checked beside.
 */
async function auditRate(dataDir: string): Promise<{ events: number; eventsPerSecond: number; resultsPerSecond: number; storeLeaves: number; digestRuns: number }> {
  const { auditEventLog, startSignaturePool, openEventStoreForReading, LeafStore } = await compiledAudit();
  // The service's key generations under its secret; only their public halves check the results.
  const keyring = loadKeyring(SECRET, dataDir);
  const publicOnly: AuditKeys = { keyById: (id) => keyring.keyById(id), history: () => keyring.history() };
  const store = await openEventStoreForReading({ DATA_DIR: dataDir }, quiet);
  const resultStore = LeafStore.openForReading(join(dataDir, 'result-log', 'store'));
  if (!resultStore) throw new Error("the service left no result log store to audit");
  const verifier = startSignaturePool(availableParallelism());
  const started = performance.now();
  try {
    const report = await auditEventLog({ store, keyring: publicOnly, verifier, chainRules: auditRules, resultStore });
    if (!report.ok) throw new Error(`the audit failed: ${JSON.stringify(report.failuresByKind)}`);
    if (report.resultStoreChecked !== resultStore.size) throw new Error(`the audit checked ${report.resultStoreChecked} of the result log store's ${resultStore.size} leaves`);
    const seconds = (performance.now() - started) / 1000;
    return { events: report.events, eventsPerSecond: report.events / seconds, resultsPerSecond: report.results / seconds, storeLeaves: resultStore.size, digestRuns: report.resultStoreDigestRuns?.runs ?? 0 };
  } finally {
    await verifier.close();
    await store.close();
    await resultStore.close();
  }
}
