import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { PaymentRequired } from '@x402/core/types';
import { afterAll, describe, expect, it } from 'vitest';
import { auditEventLog } from '../../src/audit/audit.ts';
import { auditRules } from '../../src/catalog/index.ts';
import { openEventStoreForReading } from '../../src/events/open-store.ts';
import { createKeyring } from '../../src/signing/keyring.ts';
import { rootFromInclusionProof } from '../../src/signing/rfc6962-merkle.ts';
import { resultLeafBytes, type ResultLeaf } from '../../src/transparency/result-leaf.ts';
import { fetchQuote, signPayment, type HandMadePayment } from '../support/x402-payments.ts';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

/**
 * SIGKILL under mixed paid load, round after round, on one data directory: stateless results
 * (veritrack), a payer's hash-chained memory, content-addressed evidence and the spend governor.
 * Whatever a killed server acknowledged must replay byte for byte with its original payment on
 * any later server, and the audit of the whole log must pass.
 */
const ROUNDS = 20;
const SECRET = 'sigkill-paid-load-secret-0123456789abcdef';
const SERVER = join(import.meta.dirname, '..', 'payments', 'fixtures', 'crash-server.ts');
const quiet = { info() {}, warn() {}, error() {} };
const dataDirs: string[] = [];
afterAll(() => Promise.all(dataDirs.map((d) => rm(d, { recursive: true, force: true }))));

interface Server {
  url: string;
  child: ChildProcess;
  exited: Promise<unknown>;
}

async function startServer(dataDir: string): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER, dataDir], { env: { ...process.env, ATTESTATION_SECRET: SECRET, PUBLIC_BASE_URL: 'https://attest.example' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => line.startsWith('ready ') && resolve(line.slice(6)));
    void exited.then(() => reject(new Error(`server exited before ready: ${stderr}`)));
  });
  return { url, child, exited };
}

interface Call {
  path: string;
  body: string;
  payment: HandMadePayment;
}

const owner = privateKeyToAccount(generatePrivateKey());
let n = 0;
function nextCall(quotes: Record<string, PaymentRequired>): Promise<Call> {
  const i = n++;
  const kinds: Array<[string, unknown, boolean]> = [
    ['/v1/veritrack/attest', { kind: 'load', claim: { i } }, false],
    ['/v1/memory/put', { agent_id: 'load-agent', key: `k${i % 3}`, value: { i } }, true],
    ['/v1/evidence/ingest', { action: 'load.step', payload: { i } }, false],
    ['/v1/governance/reserve', { agent_id: 'load-governed', amount: '0.01', purpose: `call ${i}`, ttl_seconds: 60, budget: { cap: '1000', period: 86400 } }, true],
  ];
  const [path, input, owned] = kinds[i % kinds.length]!;
  return signPayment(quotes[path]!, owned ? { account: owner } : {}).then((payment) => ({ path, body: JSON.stringify(input), payment }));
}

/** The inclusion proof of a result, once a checkpoint covers it (the service signs one every 2 s). */
async function inclusionProof(url: string, sha256: string): Promise<{ leaf_index: number; tree_size: number; leaf: ResultLeaf; audit_path: string[]; root_hash: string }> {
  for (let i = 0; i < 100; i++) {
    const res = await fetch(`${url}/v1/log/proof/inclusion?sha256=${sha256}`);
    if (res.status === 200) return (await res.json()) as Awaited<ReturnType<typeof inclusionProof>>;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no checkpoint covers result ${sha256}`);
}

const send = (url: string, call: Call) =>
  fetch(`${url}${call.path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': call.payment.header }, body: call.body });

describe('SIGKILL under mixed paid load', () => {
  it(`keeps every acknowledged result across ${ROUNDS} kills: each replays byte for byte with its payment, and the audit passes`, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'attest-sigkill-'));
    dataDirs.push(dataDir);
    const acknowledged: Array<{ call: Call; text: string }> = [];
    const unanswered: Call[] = [];
    let quotes: Record<string, PaymentRequired> | undefined;

    for (let round = 0; round < ROUNDS; round++) {
      const server = await startServer(dataDir);
      quotes ??= Object.fromEntries(
        await Promise.all(
          ['/v1/veritrack/attest', '/v1/memory/put', '/v1/evidence/ingest', '/v1/governance/reserve'].map(async (path) => {
            const sample = path === '/v1/memory/put' ? { agent_id: 'a', key: 'k', value: 1 } : path === '/v1/evidence/ingest' ? { action: 'a' } : path === '/v1/governance/reserve' ? { agent_id: 'a', amount: '1', purpose: 'p', ttl_seconds: 60 } : { kind: 'k', claim: {} };
            return [path, await fetchQuote(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sample) })] as const;
          }),
        ),
      );
      const calls = await Promise.all(Array.from({ length: 12 }, () => nextCall(quotes!)));
      const inFlight = calls.map(async (call) => {
        try {
          const res = await send(server.url, call);
          const text = await res.text();
          if (res.status === 200) acknowledged.push({ call, text });
          else unanswered.push(call);
        } catch {
          unanswered.push(call);
        }
      });
      // Killed at a random moment while the calls are in flight (some answered, some not).
      await new Promise((resolve) => setTimeout(resolve, 30 + Math.floor(Math.random() * 300)));
      server.child.kill('SIGKILL');
      await Promise.all([...inFlight, server.exited]);
    }

    const last = await startServer(dataDir);
    try {
      expect(acknowledged.length).toBeGreaterThan(0);
      for (const { call, text } of acknowledged) expect(await (await send(last.url, call)).text()).toBe(text);
      // A call the kill cut off is completed by its retry with the same payment.
      for (const call of unanswered.slice(0, 8)) expect([200, 403, 409]).toContain((await send(last.url, call)).status);
      // The result log, resumed from its store after every kill (whatever commit each kill left),
      // proves each acknowledged result against a signed checkpoint; the audit below rebuilds
      // the tree from the event log and checks that checkpoint's root.
      for (const { text } of acknowledged.slice(-6)) {
        const { sha256 } = JSON.parse(text) as { sha256: string };
        const proof = await inclusionProof(last.url, sha256);
        expect(rootFromInclusionProof(resultLeafBytes(proof.leaf), { leafIndex: proof.leaf_index, treeSize: proof.tree_size, auditPath: proof.audit_path })).toBe(proof.root_hash);
      }
    } finally {
      last.child.kill('SIGTERM');
      await last.exited;
    }
    const store = await openEventStoreForReading({ DATA_DIR: dataDir }, quiet);
    try {
      const report = await auditEventLog({ store, keyring: createKeyring(SECRET), chainRules: auditRules });
      expect(report.failures).toEqual([]);
      expect(report.results).toBeGreaterThanOrEqual(acknowledged.length);
      expect(report.checkpoints).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  }, 300_000);
});
