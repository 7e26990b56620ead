import { tmpdir } from 'node:os';
import { findOperation } from '../src/catalog/index.ts';
import { loadSettings } from '../src/config.ts';
import { paymentRequirements } from '../src/payments/x402/quote.ts';
import { attestBody, ATTEST_PATH, presignPayments } from './support/paid-payments.ts';
import { paidSlice, stopWithin } from './support/paid-slices.ts';
import { onLoadCore, spawnServer, type BenchServer } from './support/spawn-server.ts';
import { memoryOf } from './support/proc.ts';

/**
 * Memory under a long paid load: the service as `npm start` runs it (file log, local settlement)
 * takes paid calls for SOAK_SECONDS (default 60) in slices of 5 s, each with fresh pre-signed
 * payments. After every slice its resident set size is read from /proc, and the heap that survives
 * a full collection (what it retains; RSS also holds garbage not yet collected) is asked for.
 * Target: flat within 50 MB after the warm-up (the first two slices), however many calls the log holds.
 *
 * Payments are signed slice by slice, between slices, so the load generator's own memory does
 * not grow with the soak and signing never competes with the server while it is measured.
 */
const SECRET = 'bench-attestation-secret-0123456789abcdef';
const PATH = ATTEST_PATH;
const SLICE_SECONDS = 5;
const SLICE_MAX_CALLS = 20_000;
const WARM_UP_SLICES = 2;
const TARGET_GROWTH_MB = 50;

export default function run(): Promise<void> {
  return onLoadCore(soak);
}

async function soak(): Promise<void> {
  const seconds = Number(process.env['SOAK_SECONDS'] ?? 60);
  const slices = Math.max(WARM_UP_SLICES + 2, Math.ceil(seconds / SLICE_SECONDS));
  const requirements = paymentRequirements(findOperation('veritrack.attest')!, loadSettings({ DATA_DIR: tmpdir(), LOG_LEVEL: 'silent' }));
  const server = await spawnServer(new URL('./support/paid-server.ts', import.meta.url), { PAID_CALL_BENCH_SERVER: 'full', ATTESTATION_SECRET: SECRET }, ['--expose-gc']);
  const target = { server, next: 0 };
  const samples: Array<{ calls: number; rssMb: number; anonMb: number; fileMb: number; heapMb: number; rate: number }> = [];
  let calls = 0;
  console.log(`soak: ${slices} slices of ${SLICE_SECONDS} s, 64 in flight, POST ${PATH}; RSS at start ${memoryOf(server.child.pid!).rss.toFixed(0)} MB`);
  try {
    for (let i = 0; i < slices; i++) {
      const payments = presignPayments(requirements, `http://127.0.0.1${PATH}`, SLICE_MAX_CALLS);
      target.next = 0;
      const result = await paidSlice(target, { path: PATH, body: attestBody, concurrency: 64 }, payments, { requests: SLICE_MAX_CALLS, seconds: SLICE_SECONDS });
      const ok = result.statuses[200] ?? 0;
      calls += ok;
      const odd = Object.keys(result.statuses).some((code) => code !== '200') ? ` statuses ${JSON.stringify(result.statuses)}` : '';
      const rss = memoryOf(server.child.pid!);
      samples.push({ calls, rssMb: rss.rss, anonMb: rss.anon, fileMb: rss.file, heapMb: await retainedHeapMbOf(server), rate: ok / result.seconds });
      const s = samples.at(-1)!;
      console.log(
        `  slice ${String(i + 1).padStart(2)} ${s.rate.toFixed(0).padStart(5)}/s  ${String(calls).padStart(7)} paid calls  RSS ${s.rssMb.toFixed(0)} MB ` +
          `(anonymous ${s.anonMb.toFixed(0)}, mapped files ${s.fileMb.toFixed(0)})  retained heap ${s.heapMb.toFixed(1)} MB${i < WARM_UP_SLICES ? ' (warm-up)' : ''}${odd}`,
      );
    }
  } finally {
    await stopWithin(server, 10);
  }
  const afterWarmUp = samples.slice(WARM_UP_SLICES);
  const first = afterWarmUp[0]!;
  const last = afterWarmUp.at(-1)!;
  const peak = Math.max(...afterWarmUp.map((s) => s.rssMb));
  const growth = peak - first.rssMb;
  const calls100k = Math.max(1, last.calls - first.calls) / 100_000;
  const heapGrowth = last.heapMb - first.heapMb;
  console.log(`RSS after warm-up ${first.rssMb.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, last ${last.rssMb.toFixed(0)} MB over ${last.calls - first.calls} more paid calls`);
  console.log(`RSS growth ${growth.toFixed(0)} MB (target <= ${TARGET_GROWTH_MB} MB: ${growth <= TARGET_GROWTH_MB ? 'met' : 'NOT met'}); ${((last.rssMb - first.rssMb) / calls100k).toFixed(0)} MB per 100k calls, first to last`);
  const anonPeak = Math.max(...afterWarmUp.map((s) => s.anonMb));
  const anonGrowth = anonPeak - first.anonMb;
  console.log(
    `of which anonymous memory (the process's own: heap, buffers, native allocations) ${first.anonMb.toFixed(0)} -> peak ${anonPeak.toFixed(0)} MB: growth ${anonGrowth.toFixed(0)} MB ` +
      `(target <= ${TARGET_GROWTH_MB} MB: ${anonGrowth <= TARGET_GROWTH_MB ? 'met' : 'NOT met'}); mapped files (the event index's pages, page cache the kernel reclaims) ${first.fileMb.toFixed(0)} -> ${last.fileMb.toFixed(0)} MB`,
  );
  console.log(`retained heap ${first.heapMb.toFixed(1)} -> ${last.heapMb.toFixed(1)} MB: ${heapGrowth.toFixed(1)} MB, ${(heapGrowth / calls100k).toFixed(1)} MB per 100k calls (${((heapGrowth * 1024 * 1024) / (calls100k * 100_000)).toFixed(0)} bytes a call)`);
}

/** The server's heap after a full collection, in MB (paid-server.ts answers SIGUSR2 with it). */
function retainedHeapMbOf(server: BenchServer): Promise<number> {
  return new Promise((resolve) => {
    const onLine = (line: string) => {
      const match = /^heap (\d+)$/.exec(line);
      if (!match) return;
      server.lines.off('line', onLine);
      resolve(Number(match[1]) / (1024 * 1024));
    };
    server.lines.on('line', onLine);
    server.child.kill('SIGUSR2');
  });
}
