import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findOperation } from '../src/catalog/index.ts';
import { loadSettings } from '../src/config.ts';
import { openEventStore } from '../src/events/open-store.ts';
import { createLogger } from '../src/logger.ts';
import { paymentRequirements } from '../src/payments/x402/quote.ts';
import { createKeyring } from '../src/signing/keyring.ts';
import { signCheckpoint, type NoteSigner } from '../src/transparency/c2sp-checkpoint.ts';
import { LeafStore, type StoredLeaf } from '../src/transparency/leaf-store.ts';
import { MerkleLog } from '../src/signing/merkle-log.ts';
import { resultLeafHash } from '../src/transparency/result-leaf.ts';
import { median } from './support/load.ts';
import { paidSlice, stopWithin, type PaidTarget } from './support/paid-slices.ts';
import { attestBody, ATTEST_PATH, presignPayments } from './support/paid-payments.ts';
import { cpuSecondsOf, inRounds, list, roundRatios } from './support/rounds.ts';
import { onLoadCore, spawnServer } from './support/spawn-server.ts';

/**
 * The result log's cost (issue: transparency log of every result):
 *  1. paid calls per second with RESULT_LOG=on and off, two servers side by side, in rounds
 *     (target: on >= 0.9 x off);
 *  2. at 1M leaves in the result log's store on disk: building the tree, issuing one checkpoint
 *     (root, two Ed25519 signatures, one durable append to the file log), and inclusion and
 *     consistency proofs and lookups by digest per second.
 */
type Role = 'on' | 'off';
const SECRET = 'bench-attestation-secret-0123456789abcdef';
const CALL = { path: ATTEST_PATH, body: attestBody, concurrency: 64 };
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
  // As the service keeps it: leaves, inner nodes and the digest lookup in its store on disk, no
  // leaf hashes (each given again from its leaf when a proof asks).
  const storeDir = mkdtempSync(join(tmpdir(), 'bench-result-leaves-'));
  const leaves = LeafStore.open(storeDir, (err) => {
    throw err;
  });
  const leafOf = (i: number): StoredLeaf => ({ position: 3 * i + 2, sha256: createHash('sha256').update(String(i)).digest(), key: 'veritrack 0123456789abcdef' });
  const leafHashAt = (i: number) => {
    const leaf = leaves.leafAt(i);
    return resultLeafHash({ key_family: 'veritrack', key_id: leaf.key.split(' ')[1]!, sha256: Buffer.from(leaf.sha256).toString('hex') });
  };
  const tree = new MerkleLog(leafHashAt, leaves, 0);
  const append = (leaf: StoredLeaf) => {
    leaves.append(leaf);
    tree.appendLeafHash(resultLeafHash({ key_family: 'veritrack', key_id: '0123456789abcdef', sha256: Buffer.from(leaf.sha256).toString('hex') }));
  };
  const heapBefore = process.memoryUsage().heapUsed;
  const built = process.hrtime.bigint();
  for (let i = 0; i < LEAVES; i++) {
    append(leafOf(i));
    // The service commits every 100 ms: a tail of a few thousand leaves at most.
    if (i % 8_192 === 8_191) await leaves.flush();
  }
  await leaves.flush();
  // The digest lookup's merges run behind the commits: a catch-up is done when they are.
  await leaves.digestRunsMerged();
  const buildSeconds = secondsSince(built);
  const heapGrowth = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  console.log(`\nresult tree of ${LEAVES.toLocaleString('en')} leaves in its store: built and committed in ${buildSeconds.toFixed(1)} s (${((buildSeconds * 1e6) / LEAVES).toFixed(2)} us a leaf, what a catch-up after a lost store costs); ${(diskBytes(storeDir) / 2 ** 20).toFixed(0)} MiB on disk; JS heap ${heapGrowth >= 0 ? '+' : ''}${heapGrowth.toFixed(1)} MiB (garbage included)`);

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
      append(leafOf(LEAVES + i));
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

  try {
    const size = tree.size;
    const inclusionRate = perSecond(2, (i) => tree.inclusionProof((i * 7_919) % size, size));
    const consistencyRate = perSecond(2, (i) => tree.consistencyProof(1 + ((i * 104_729) % (size - 1)), size));
    const rootRate = perSecond(1, (i) => tree.root(size - (i % 1000)));
    const lookupRate = perSecond(1, (i) => leaves.find(leafOf((i * 7_919) % LEAVES).sha256));
    console.log(`at ${size.toLocaleString('en')} leaves, nodes read from the store: inclusion proofs ${inclusionRate.toFixed(0)}/s, consistency proofs ${consistencyRate.toFixed(0)}/s, roots of earlier sizes ${rootRate.toFixed(0)}/s, lookups by digest ${lookupRate.toFixed(0)}/s`);
  } finally {
    await leaves.close();
    rmSync(storeDir, { recursive: true, force: true });
  }
}

function perSecond(seconds: number, fn: (i: number) => unknown): number {
  const started = process.hrtime.bigint();
  let i = 0;
  while (secondsSince(started) < seconds) for (const end = i + 100; i < end; i++) fn(i);
  return i / secondsSince(started);
}

const secondsSince = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

/** Bytes a directory's files take on disk, its subdirectories' included. */
function diskBytes(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => sum + (entry.isDirectory() ? diskBytes(join(dir, entry.name)) : statSync(join(dir, entry.name)).blocks * 512), 0);
}
