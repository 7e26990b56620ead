import { spawn, type ChildProcess } from 'node:child_process';
import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { auditEventLog } from '../../src/audit/audit.ts';
import { auditRules } from '../../src/catalog/index.ts';
import { openEventStoreForReading } from '../../src/events/open-store.ts';
import { createKeyring } from '../../src/signing/keyring.ts';
import { LeafStore } from '../../src/transparency/leaf-store.ts';
import { mountSmallDisk } from '../support/small-disk.ts';
import { fetchQuote, signPayment, type HandMadePayment } from '../support/x402-payments.ts';

/**
 * The disk fills with the service's own writes under paid load, on a small tmpfs this test mounts
 * (as root; skipped, saying why, where mounting is not allowed). Every file the service writes
 * is on it: the event log's segments, its index and the result log's store (both LMDB). Written
 * through its map, LMDB touched a page the file system could not allocate and the kernel ended
 * the process with SIGBUS; then a failed commit's promise nobody awaited ended it too. The
 * service must stay up, refuse calls with 503 while the disk is full, and take them again once
 * there is room, losing nothing it acknowledged.
 */
const SECRET = 'disk-fills-under-load-secret-0123456789abcdef';
const MAIN = join(import.meta.dirname, '..', '..', 'src', 'main.ts');
const quiet = { info() {}, warn() {}, error() {} };
const disk = mountSmallDisk('disk-fills-under-load', '4m');

const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await new Promise((resolve) => setTimeout(resolve, 200));
  disk.remove();
});

interface Service {
  url: string;
  child: ChildProcess;
  /** What it printed on stderr: its fatal errors, for a failure's message. */
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** A free port on loopback: the answers name the service's URL, so a restart must keep it for a replay to match byte for byte. */
const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as { port: number };
    probe.close(() => resolve(port));
  });
});

/** `npm start` on `dataDir`, from the sources: the file log, local settlement, stderr piped. */
function spawnService(dataDir: string): ChildProcess {
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'silent', ATTESTATION_SECRET: SECRET, SETTLEMENT: 'local', EVENTSTORE_URL: '' };
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  return child;
}

async function startService(dataDir: string): Promise<Service> {
  const child = spawnService(dataDir);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      stderr += `${line}\n`;
      const listening = /^Listening on (\S+) /.exec(line);
      if (listening) resolve(listening[1]!);
    });
    void exited.then(() => reject(new Error(`the service exited before listening: ${stderr}`)));
  });
  return { url, child, exited, stderr: () => stderr };
}

/** A start that must fail: its exit code and what it said. */
async function startRefused(dataDir: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawnService(dataDir);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // One that starts after all is stopped, and fails the test with what it said.
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  clearTimeout(timer);
  return { code, stderr };
}

const body = (i: number) => JSON.stringify({ kind: 'disk-fills', claim: { i, pad: 'p'.repeat(600) } });
const post = (url: string, payment: HandMadePayment, i: number) =>
  fetch(`${url}/v1/veritrack/attest`, { method: 'POST', headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': payment.header }, body: body(i) });

describe.skipIf(!disk.mounted)('the disk filling under paid load', () => {
  const dataDir = join(disk.path, 'data');
  const acknowledged: Array<{ payment: HandMadePayment; i: number; text: string }> = [];

  it('is an outage the service outlives: 503 while full, paid calls again once there is room, nothing acknowledged lost', async () => {
    // Room handed back later, as an operator would by deleting something.
    const room = join(disk.path, 'room');
    writeFileSync(room, Buffer.alloc(1024 * 1024));
    let service = await startService(dataDir);
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    void service.exited.then((e) => (exit = e));
    const quote = await fetchQuote(`${service.url}/v1/veritrack/attest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(0) });

    let refused = 0;
    for (let i = 0; refused < 64 && i < 8_000 && !exit; i += 16) {
      const batch = await Promise.all(Array.from({ length: 16 }, async (_, k) => ({ payment: await signPayment(quote), i: i + k })));
      const answers = await Promise.all(batch.map(async (call) => {
        try {
          const res = await post(service.url, call.payment, call.i);
          return { call, status: res.status, text: await res.text() };
        } catch {
          return { call, status: 0, text: '' };
        }
      }));
      for (const { call, status, text } of answers) {
        if (status === 200) acknowledged.push({ ...call, text });
        else if (status === 503) refused++;
        else expect.fail(`a paid call answered ${status || 'nothing'} while the disk filled: ${text}${service.stderr()}`);
      }
    }
    expect(refused).toBeGreaterThanOrEqual(64);
    expect(acknowledged.length).toBeGreaterThan(100);
    // The index's checkpoint (at most 1 s after the last append) and the result log's commit
    // (100 ms) have met the full disk by now, and each retries within 5 s.
    await new Promise((resolve) => setTimeout(resolve, 6_500));
    expect(exit, service.stderr()).toBeUndefined();
    // Alive; whether ready depends on whether the log's last recovery found room (it cuts the
    // refused appends, which frees some).
    expect((await fetch(`${service.url}/health`)).status).toBe(200);

    unlinkSync(room);
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && (await fetch(`${service.url}/ready`)).status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await fetch(`${service.url}/ready`)).status).toBe(200);
    const after = { payment: await signPayment(quote), i: 100_000 };
    const answer = await post(service.url, after.payment, after.i);
    expect(answer.status).toBe(200);
    acknowledged.push({ ...after, text: await answer.text() });

    service.child.kill('SIGTERM');
    expect(await service.exited).toEqual({ code: 0, signal: null });

    // A later start on the same disk takes the log, its index and the result log's store as the
    // first left them: every acknowledged result replays byte for byte with its payment.
    service = await startService(dataDir);
    try {
      for (const { payment, i, text } of [...acknowledged.slice(0, 3), ...acknowledged.slice(-3)]) expect(await (await post(service.url, payment, i)).text()).toBe(text);
    } finally {
      service.child.kill('SIGTERM');
      expect(await service.exited).toEqual({ code: 0, signal: null });
    }

    const store = await openEventStoreForReading({ DATA_DIR: dataDir }, quiet);
    const resultStore = LeafStore.openForReading(join(dataDir, 'result-log', 'store'));
    if (!resultStore) throw new Error('the result log has no store on disk');
    try {
      const report = await auditEventLog({ store, keyring: createKeyring(SECRET), chainRules: auditRules, resultStore });
      expect(report.failures).toEqual([]);
      expect(report.results).toBe(acknowledged.length);
      expect(report.resultStoreChecked).toBe(acknowledged.length);
    } finally {
      await resultStore.close();
      await store.close();
    }
  }, 120_000);

  it('a stop on a full disk ends cleanly, a start on one says why it cannot, and the next start with room loses nothing', async () => {
    expect(acknowledged.length).toBeGreaterThan(100);
    const [last] = acknowledged.slice(-1);
    const service = await startService(dataDir);
    const quote = await fetchQuote(`${service.url}/v1/veritrack/attest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(0) });
    // One more call before the disk fills: the service holds state it has not saved yet (the
    // public stats' checkpoint), which its stop will fail to write.
    const before = { payment: await signPayment(quote), i: 150_000 };
    const answer = await post(service.url, before.payment, before.i);
    expect(answer.status).toBe(200);
    acknowledged.push({ ...before, text: await answer.text() });
    const filler = disk.fill('filler');
    // A replay reads what is stored and writes nothing: answered on a full disk too. A new call
    // cannot be recorded: refused, nothing charged.
    expect(await (await post(service.url, last!.payment, last!.i)).text()).toBe(last!.text);
    // (What fits in the pages the log's last write left partly empty is still taken.)
    let status = 200;
    for (let i = 200_000; status === 200 && i < 200_016; i++) {
      const call = { payment: await signPayment(quote), i };
      const res = await post(service.url, call.payment, call.i);
      status = res.status;
      if (status === 200) acknowledged.push({ ...call, text: await res.text() });
    }
    expect(status).toBe(503);
    service.child.kill('SIGTERM');
    expect(await service.exited, service.stderr()).toEqual({ code: 0, signal: null });

    // A start writes (its lock file, its caches): on a full disk it stops at once and says why.
    // (The stop freed a little, its lock file: taken too.)
    const more = disk.fill('filler-2');
    const refused = await startRefused(dataDir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^fatal: .*the disk holding .* has \d+ bytes free: free some space and start again/m);

    unlinkSync(filler);
    unlinkSync(more);
    const again = await startService(dataDir);
    try {
      for (const { payment, i, text } of [...acknowledged.slice(0, 2), ...acknowledged.slice(-2)]) expect(await (await post(again.url, payment, i)).text()).toBe(text);
    } finally {
      again.child.kill('SIGTERM');
      expect(await again.exited).toEqual({ code: 0, signal: null });
    }
  }, 60_000);
});
