import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { auditEventLog } from '../../src/audit/audit.ts';
import { openEventStoreForReading } from '../../src/events/open-store.ts';
import { PAYMENT_EVENT_TYPES, paymentStreamName } from '../../src/payments/saga/events.ts';
import { createKeyring } from '../../src/signing/keyring.ts';
import { fetchQuote, signPayment } from '../support/x402-payments.ts';
import { auditRules } from '../../src/catalog/index.ts';

const SECRET = 'payment-crash-secret-0123456789abcdef0123';
const SERVER = join(import.meta.dirname, 'fixtures', 'crash-server.ts');
const dirs: string[] = [];
const quiet = { info() {}, warn() {}, error() {} };
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

interface Child {
  url: string;
  process: ChildProcess;
  exited: Promise<NodeJS.Signals | number | null>;
}

async function startServer(dataDir: string, dieBefore?: string): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER, dataDir, ...(dieBefore ? [dieBefore] : [])], {
    cwd: process.cwd(),
    env: { ...process.env, ATTESTATION_SECRET: SECRET },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('ready ')) resolve(line.slice('ready '.length));
    });
    void exited.then((how) => reject(new Error(`server exited (${String(how)}) before ready: ${stderr}`)));
  });
  return { url, process: child, exited };
}

const body = JSON.stringify({ kind: 'model-eval', claim: { model: 'crash', score: 0.3 } });
const post = (url: string, payment: string) =>
  fetch(`${url}/v1/veritrack/attest`, { method: 'POST', headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': payment }, body });

/** What a killed server left durable in the payment stream. */
async function streamTypes(dataDir: string, stream: string): Promise<string[]> {
  const store = await openEventStoreForReading({ DATA_DIR: dataDir }, quiet);
  try {
    return (await store.readStream(stream)).map((e) => e.type);
  } finally {
    await store.close();
  }
}

describe('the paid-call saga survives SIGKILL at each step', () => {
  it('killed before PaymentSettled, then before ResultSigned: each retry resumes, one settlement, the audit passes', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'attest-pay-crash-'));
    dirs.push(dataDir);

    const first = await startServer(dataDir, PAYMENT_EVENT_TYPES.settled);
    const quote = await fetchQuote(`${first.url}/v1/veritrack/attest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const payment = await signPayment(quote);
    const stream = paymentStreamName(payment.authorization.from, payment.authorization.nonce);
    await expect(post(first.url, payment.header)).rejects.toThrow();
    expect(await first.exited).toBe('SIGKILL');
    expect(await streamTypes(dataDir, stream)).toEqual([PAYMENT_EVENT_TYPES.authorized]);

    // The retry finds the nonce claimed, settles, and dies after PaymentSettled is durable.
    const second = await startServer(dataDir, PAYMENT_EVENT_TYPES.signed);
    await expect(post(second.url, payment.header)).rejects.toThrow();
    expect(await second.exited).toBe('SIGKILL');
    expect(await streamTypes(dataDir, stream)).toEqual([PAYMENT_EVENT_TYPES.authorized, PAYMENT_EVENT_TYPES.settled]);

    const third = await startServer(dataDir);
    try {
      const retry = await post(third.url, payment.header);
      expect(retry.status).toBe(200);
      const result = (await retry.json()) as { claim: unknown; ed25519Sig: string };
      expect(result.claim).toEqual({ model: 'crash', score: 0.3 });
      const again = await post(third.url, payment.header);
      expect(await again.json()).toEqual(result);
    } finally {
      third.process.kill('SIGTERM');
      await third.exited;
    }

    const store = await openEventStoreForReading({ DATA_DIR: dataDir }, quiet);
    try {
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual([
        PAYMENT_EVENT_TYPES.authorized,
        PAYMENT_EVENT_TYPES.settled,
        PAYMENT_EVENT_TYPES.signed,
      ]);
      const report = await auditEventLog({ store, keyring: createKeyring(SECRET), chainRules: auditRules });
      expect(report.failures).toEqual([]);
      expect(report.ok).toBe(true);
      expect(report.results).toBe(1);
    } finally {
      await store.close();
    }
  }, 80_000);
});
