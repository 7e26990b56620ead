/**
 * Event store benchmark (run by bench/run.ts; never part of npm test):
 * - durable appends per second of 1 KiB events through the file log's group commit, at
 *   concurrency 1 and 64, beside a bare write + fdatasync loop with the same batching measured
 *   in the same run (target at concurrency 64: at least 0.5 of the bare loop). The store
 *   pipelines its group commits (two batches in flight), so at 64 the bare loop is run both
 *   ways, serial batches of 64 and two loops of 32 at once, and the store is held to the faster;
 * - the audit's replay rate in events per second (target >= 100,000/s), on a log of domain
 *   events, and separately on a log of paid-call sagas, whose Ed25519 verifications bound it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { writeSync } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditEventLog } from '../src/audit/audit.ts';
import { PIPELINE_DEPTH } from '../src/events/file-log/framing.ts';
import { openFileEventStore } from '../src/events/file-log/store.ts';
import { paymentStreamName } from '../src/payments/saga/events.ts';
import type { EventData, EventStore } from '../src/events/port.ts';
import { createKeyring } from '../src/signing/keyring.ts';
import { median } from './support/load.ts';
import { inRounds, list, roundRatios } from './support/rounds.ts';
import { seal } from '../src/signing/seal.ts';
import { auditRules } from '../src/catalog/index.ts';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const RUN_MS = 1000;
/** Rounds of one store run and one bare run each; the ratio is the median of the rounds' ratios. */
const ROUNDS = 9;

const PAYLOAD = randomBytes(440).toString('hex');

/**
 * Event ids, made before any timing for the same reason as the fixed payload: the bench measures
 * the store, not the generator. randomUUID costs about 0.4 µs and returns a string built of ~20
 * concatenated pieces, which the first store operation that reads it must flatten (about as much
 * again): together that was over a tenth of an append's CPU time at concurrency 64. Ids are cut
 * from one text as fresh plain strings, so the store still hashes and copies every id it is given.
 * They only need to be unique within one store, and every run opens a new one.
 */
const ID_POOL = 500_000;
/** 36 random hex digits per id (the length of a UUID), made in one call: a heap of 500,000 UUID strings would slow every GC after it. */
const ID_TEXT = Buffer.from(randomBytes(ID_POOL * 18).toString('hex'), 'latin1');
let nextId = 0;

function freshId(): string {
  // A run faster than the pool (far beyond any disk here) falls back to generating ids.
  if (nextId >= ID_POOL) return randomUUID();
  const at = 36 * nextId++;
  return ID_TEXT.toString('latin1', at, at + 36);
}

/** An event whose encoded record is about 1 KiB (one fixed payload: the bench measures the store, not the generator). */
function kibEvent(): EventData {
  return { id: freshId(), type: 'BenchmarkRecorded', data: { payload: PAYLOAD } };
}

async function withTempDir<T>(label: string, body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), `bench-${label}-`));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Appends per second through the store, `concurrency` writers each on its own stream; also the
 * process CPU time per append (every thread: event loop, thread pool, GC), a diagnostic only:
 * with all writers waiting on the same fdatasync, the CPU spent per append is what sets the rate.
 */
async function storeAppendsPerSecond(concurrency: number): Promise<{ rate: number; cpuMicrosPerAppend: number }> {
  return withTempDir('store', async (dir) => {
    nextId = 0;
    const store = await openFileEventStore({ dir, log: quiet });
    const deadline = performance.now() + RUN_MS;
    let appended = 0;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async (_, w) => {
        let revision: bigint | 'no_stream' = 'no_stream';
        while (performance.now() < deadline) {
          revision = (await store.appendToStream(`bench-${w}`, [kibEvent()], { expectedRevision: revision })).nextExpectedRevision;
          appended++;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    await store.close();
    return { rate: appended / seconds, cpuMicrosPerAppend: (cpu.user + cpu.system) / appended };
  });
}

/**
 * The floor under any durable log: write `batch` records of the same size, fdatasync, repeat;
 * with `chains` > 1, that many such loops at once on the same file (each batch at the next
 * offset), the shape of the store's pipelined group commit.
 */
async function bareAppendsPerSecond(batch: number, chains = 1): Promise<number> {
  return withTempDir('bare', async (dir) => {
    const handle = await open(join(dir, 'bare.log'), 'w');
    const recordBytes = 8 + Buffer.byteLength(JSON.stringify({ p: 0, s: 'bench-0', r: 0, i: randomUUID(), t: 'BenchmarkRecorded', a: Date.now(), d: kibEvent().data, m: {} }));
    const buffer = randomBytes(recordBytes * batch + 13);
    let offset = 0;
    let records = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: chains }, async () => {
        while (performance.now() - started < RUN_MS) {
          const at = offset;
          offset += buffer.length;
          // Written synchronously, as the store writes batches of this size (a thread-pool write
          // costs two thread wake-ups): the floor must not be slower than the store's own path.
          writeSync(handle.fd, buffer, 0, buffer.length, at);
          await handle.datasync();
          records += batch;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    await handle.close();
    return records / seconds;
  });
}

async function fillLog(store: EventStore, count: number, make: (i: number) => { stream: string; events: EventData[] }): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) {
        const { stream, events } = make(next);
        next += events.length;
        await store.appendToStream(stream, events);
      }
    }),
  );
}

async function replayRate(label: string, count: number, make: (i: number) => { stream: string; events: EventData[] }): Promise<{ rate: number; events: number; ok: boolean }> {
  return withTempDir(label, async (dir) => {
    const writer = await openFileEventStore({ dir, log: quiet });
    await fillLog(writer, count, make);
    await writer.close();
    const store = await openFileEventStore({ dir, log: quiet, readOnly: true });
    const started = performance.now();
    const report = await auditEventLog({ store, keyring, chainRules: auditRules });
    const seconds = (performance.now() - started) / 1000;
    await store.close();
    return { rate: report.events / seconds, events: report.events, ok: report.ok };
  });
}

const keyring = createKeyring('benchmark-secret-0123456789abcdef0123456789');

function domainEvents(i: number): { stream: string; events: EventData[] } {
  return {
    stream: `bench-entity-${i % 1000}`,
    events: Array.from({ length: 50 }, (_, k) => ({ id: randomUUID(), type: 'EntityNoted', data: { key: `k${i + k}`, value: randomBytes(100).toString('hex') } })),
  };
}

function saga(): { stream: string; events: EventData[] } {
  const payer = `0x${randomBytes(20).toString('hex')}`;
  const record = { operation: 'utils.hash', input: randomBytes(64).toString('hex'), signedAt: 1_700_000_000 };
  return {
    stream: paymentStreamName(payer, `0x${randomBytes(32).toString('hex')}`),
    events: [
      { id: randomUUID(), type: 'PaymentAuthorized', data: { payer, amount: '1000' } },
      { id: randomUUID(), type: 'PaymentSettled', data: { mode: 'local', demo: true } },
      { id: randomUUID(), type: 'ResultSigned', data: { operation: 'utils.hash', keyFamily: 'utils', record, ...seal(keyring, 'utils', record), signedAt: 1_700_000_000 } },
    ],
  };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export default async function run(): Promise<void> {
  console.log('event store: durable appends of 1 KiB events (file log, group commit, fdatasync before ack)');
  console.log('  (both the store and the bare loop write a batch with a synchronous write(2), then await fdatasync on the thread pool)');
  for (const concurrency of [1, 64]) {
    const cpus: number[] = [];
    // With one writer the store never has two batches in flight, so its one floor is the serial loop.
    const pipelinedBatch = concurrency / PIPELINE_DEPTH;
    const sides = concurrency > 1 ? (['store', 'bare', 'barePipelined'] as const) : (['store', 'bare'] as const);
    // Side by side in short runs, the order rotated each round (bench/support/rounds.ts).
    const rates: Partial<Record<(typeof sides)[number], number[]>> & Record<'store' | 'bare', number[]> = await inRounds<'store' | 'bare' | 'barePipelined'>(sides, ROUNDS, async (side) => {
      if (side === 'bare') return bareAppendsPerSecond(concurrency);
      if (side === 'barePipelined') return bareAppendsPerSecond(pipelinedBatch, PIPELINE_DEPTH);
      const { rate, cpuMicrosPerAppend } = await storeAppendsPerSecond(concurrency);
      cpus.push(cpuMicrosPerAppend);
      return rate;
    });
    // The floor of each round is the faster of the two ways to put these records on the disk.
    const pipelined: number[] = rates.barePipelined ?? [];
    const floor = rates.bare.map((bare, i) => Math.max(bare, pipelined[i] ?? 0));
    const { ratios, median: ratio } = roundRatios(rates.store, floor);
    const target = concurrency === 64 ? ' (target >= 0.50)' : '';
    console.log(`  concurrency ${String(concurrency).padStart(2)}: store ${fmt(median(rates.store))}/s (medians of ${ROUNDS} rounds)`);
    console.log(`    bare write+fdatasync loop, batches of ${concurrency}: ${fmt(median(rates.bare))}/s`);
    if (pipelined.length > 0) {
      console.log(`    bare loop pipelined as the store is, ${PIPELINE_DEPTH} loops with batches of ${pipelinedBatch}: ${fmt(median(pipelined))}/s`);
      const same = roundRatios(rates.store, pipelined);
      console.log(`    ratio to the bare loop of the same batching (pipelined) ${same.median.toFixed(2)}: median of the rounds' ${list(same.ratios, 2)}`);
    }
    console.log(`    ratio to the faster bare loop of each round ${ratio.toFixed(2)}${target}: median of the rounds' ${list(ratios, 2)}`);
    console.log(`    store: ${median(cpus).toFixed(1)} µs of process CPU per append (median)`);
  }
  const domain = await replayRate('replay-domain', 200_000, domainEvents);
  console.log(`  audit replay, domain events: ${fmt(domain.rate)} events/s over ${fmt(domain.events)} events (target >= 100,000/s)${domain.ok ? '' : ' AUDIT FAILED'}`);
  const sagas = await replayRate('replay-sagas', 30_000, () => saga());
  console.log(`  audit replay, paid-call sagas (1 Ed25519 verify per 3 events): ${fmt(sagas.rate)} events/s over ${fmt(sagas.events)} events${sagas.ok ? '' : ' AUDIT FAILED'}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
