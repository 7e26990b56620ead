import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findOperation } from '../src/catalog/index.ts';
import { loadSettings } from '../src/config.ts';
import { openEventStore } from '../src/events/open-store.ts';
import { createLogger } from '../src/logger.ts';
import { paymentRequirements } from '../src/payments/x402/quote.ts';
import { createKeyring } from '../src/signing/keyring.ts';
import { signCheckpoint, type NoteSigner } from '../src/transparency/c2sp-checkpoint.ts';
import { MerkleLog } from '../src/transparency/merkle-log.ts';
import { resultLeafBytes } from '../src/transparency/result-leaf.ts';
import { leafHash } from '../src/signing/rfc6962-merkle.ts';
import { median } from './support/load.ts';
import { paidSlice, stopWithin, type PaidTarget } from './support/paid-slices.ts';
import { presignPayments } from './support/paid-payments.ts';
import { cpuSecondsOf, inRounds, list, roundRatios } from './support/rounds.ts';
import { onLoadCore, spawnServer } from './support/spawn-server.ts';

/**
 * The result log's cost (issue: transparency log of every result):
 *  1. paid calls per second with RESULT_LOG=on and off, two servers side by side, in rounds
 *     (target: on >= 0.9 x off);
 *  2. at 1M leaves: building the tree, issuing one checkpoint (root, two Ed25519 signatures, one
 *     durable append to the file log), and inclusion and consistency proofs per second.
 */
type Role = 'on' | 'off';
const SECRET = 'bench-attestation-secret-0123456789abcdef';
const CALL = { path: '/v1/veritrack/attest', body: JSON.stringify({ kind: 'model-eval', claim: { model: 'example-7b', benchmark: 'arc-easy', score: 0.81 } }), concurrency: 64 };
const ROUNDS = 7;
const WARM_UP = { requests: 3_000, seconds: 5 };
const SLICE = { requests: 4_000, seconds: 1.5 };
const LEAVES = 1_000_000;

export default async function run(): Promise<void> {
  await onLoadCore(paidRates);
  await treeAtScale();
}

async function paidRates(): Promise<void> {
  const settings = loadSettings({ DATA_DIR: tmpdir(), LOG_LEVEL: 'silent' });
  const requirements = paymentRequirements(findOperation('veritrack.attest')!, settings);
  const payments = presignPayments(requirements, `http://127.0.0.1${CALL.path}`, WARM_UP.requests + ROUNDS * SLICE.requests);
  const roles: Role[] = ['on', 'off'];
  const servers = {} as Record<Role, PaidTarget>;
  const cpuPerCallUs: Record<Role, number[]> = { on: [], off: [] };
  try {
    for (const role of roles) {
      const env = { PAID_CALL_BENCH_SERVER: 'full', ATTESTATION_SECRET: SECRET, RESULT_LOG: role };
      servers[role] = { server: await spawnServer(new URL('./support/paid-server.ts', import.meta.url), env), next: 0 };
      await paidSlice(servers[role], CALL, payments, WARM_UP);
    }
    const rates = await inRounds(roles, ROUNDS, async (role, round) => {
      const pid = servers[role].server.child.pid!;
      const cpuBefore = cpuSecondsOf(pid);
      const result = await paidSlice(servers[role], CALL, payments, SLICE);
      const cpuAfter = cpuSecondsOf(pid);
      const ok = result.statuses[200] ?? 0;
      if (cpuBefore !== undefined && cpuAfter !== undefined && ok > 0) cpuPerCallUs[role].push(((cpuAfter - cpuBefore) * 1e6) / ok);
      console.log(`  round ${round + 1} log ${role.padEnd(3)} ${(ok / result.seconds).toFixed(0)}/s (${ok} paid calls in ${result.seconds.toFixed(1)} s)`);
      return ok / result.seconds;
    });
    const { ratios, median: m } = roundRatios(rates.on, rates.off);
    console.log(`paid calls per second, medians: log on ${median(rates.on).toFixed(0)}/s, log off ${median(rates.off).toFixed(0)}/s`);
    console.log(`ratio log on / log off: ${m.toFixed(2)} (target >= 0.9), median of the rounds' ${list(ratios, 2)}`);
    if (cpuPerCallUs.on.length && cpuPerCallUs.off.length)
      console.log(`server CPU per paid call: log on ${median(cpuPerCallUs.on).toFixed(0)} us, off ${median(cpuPerCallUs.off).toFixed(0)} us; by CPU, off / on = ${(median(cpuPerCallUs.off) / median(cpuPerCallUs.on)).toFixed(2)}`);
  } finally {
    for (const role of roles) if (servers[role]) await stopWithin(servers[role].server, 10);
  }
}

async function treeAtScale(): Promise<void> {
  // As the service keeps it: no leaf hashes, each given again from its leaf when a proof asks.
  const leafBytes = (i: number) => (i < LEAVES ? resultLeafBytes({ key_family: 'veritrack', key_id: '0123456789abcdef', sha256: i.toString(16).padStart(64, '0') }) : Buffer.from(`extra ${i - LEAVES}`));
  const tree = new MerkleLog((i) => leafHash(leafBytes(i)));
  const built = process.hrtime.bigint();
  for (let i = 0; i < LEAVES; i++) tree.append(leafBytes(i));
  const buildSeconds = secondsSince(built);
  console.log(`\nresult tree of ${LEAVES.toLocaleString('en')} leaves: built in ${buildSeconds.toFixed(1)} s (${((buildSeconds * 1e6) / LEAVES).toFixed(2)} us a leaf, what a restart replays)`);

  const dataDir = mkdtempSync(join(tmpdir(), 'bench-result-log-'));
  const settings = loadSettings({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', EVENTSTORE_URL: undefined });
  const store = await openEventStore(settings, createLogger(settings));
  try {
    const keyring = createKeyring(SECRET);
    const key = keyring.publicKey('log');
    const signer: NoteSigner = { name: 'bench/result-log', publicKey: Buffer.from(key.publicKeyHex, 'hex'), sign: (m) => Buffer.from(keyring.sign('log', m), 'hex') };
    const issueTimes: number[] = [];
    let revision: bigint | 'no_stream' = 'no_stream';
    for (let i = 0; i < 200; i++) {
      tree.append(leafBytes(LEAVES + i));
      const started = process.hrtime.bigint();
      const root = Buffer.from(tree.root()).toString('hex');
      const note = signCheckpoint(signer, signer.name, tree.size, root, 1_790_000_000 + i);
      const appended = await store.appendToStream('bench-result-log', [{ id: crypto.randomUUID(), type: 'CheckpointIssued', data: { tree_size: tree.size, root_hash: root, note } }], { expectedRevision: revision });
      revision = appended.nextExpectedRevision;
      issueTimes.push(secondsSince(started) * 1e3);
    }
    console.log(`checkpoint issue at ${tree.size.toLocaleString('en')} leaves (root + 2 Ed25519 signatures + 1 durable append): median ${median(issueTimes).toFixed(2)} ms, p99 ${percentile(issueTimes, 0.99).toFixed(2)} ms`);
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }

  const size = tree.size;
  const inclusionRate = perSecond(2, (i) => tree.inclusionProof((i * 7_919) % size, size));
  const consistencyRate = perSecond(2, (i) => tree.consistencyProof(1 + ((i * 104_729) % (size - 1)), size));
  const rootRate = perSecond(1, (i) => tree.root(size - (i % 1000)));
  console.log(`proofs per second at ${size.toLocaleString('en')} leaves: inclusion ${inclusionRate.toFixed(0)}/s, consistency ${consistencyRate.toFixed(0)}/s; roots of earlier sizes ${rootRate.toFixed(0)}/s`);
}

function perSecond(seconds: number, fn: (i: number) => unknown): number {
  const started = process.hrtime.bigint();
  let i = 0;
  while (secondsSince(started) < seconds) for (const end = i + 100; i < end; i++) fn(i);
  return i / secondsSince(started);
}

const secondsSince = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
