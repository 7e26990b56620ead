import { tmpdir } from 'node:os';
import { findOperation } from '../src/catalog/index.ts';
import { loadSettings } from '../src/config.ts';
import { paymentRequirements } from '../src/payments/quote.ts';
import { load, median, type LoadResult } from './support/load.ts';
import { presignPayments } from './support/paid-payments.ts';
import { spawnServer, type BenchServer } from './support/spawn-server.ts';

/**
 * Paid calls per second over HTTP, loopback, each call with a fresh pre-signed EIP-3009 payment,
 * every server on its own fresh durable file log (bench/support/paid-server.ts says what each
 * does). Targets of the issue: service >= 0.6 x bare pipeline, service >= 5 x the viem variant.
 *
 * The machine is shared and noisy (bare rates swing by half between minutes), so the three are
 * measured in ROUNDS rounds, in a rotated order, and compared by their medians. Every measurement
 * is bounded in requests and in time, and a server that stops answering is killed.
 *
 * PAID_CALL_BENCH_PROFILE=<dir>: the service's server writes a V8 CPU profile there on exit.
 * PAID_CALL_BENCH_ROLES=full,bare: measure only these (default all three).
 */
type Role = 'full' | 'bare' | 'viem';

const SECRET = 'bench-attestation-secret-0123456789abcdef';
const PATH = '/v1/veritrack/attest';
const BODY = JSON.stringify({ kind: 'model-eval', claim: { model: 'example-7b', benchmark: 'arc-easy', score: 0.81 } });
const CONCURRENCY = 64;
const ROUNDS = 3;
const WARM_UP = { requests: 400, seconds: 2 };
const MEASURED = { requests: 16_000, seconds: 4 };
/** Beyond its own bound, how long a load may take before its server is presumed hung. */
const HANG_SECONDS = 15;

const DESCRIPTIONS: Record<Role, string> = {
  full: `the service, POST ${PATH}, SETTLEMENT=local, file log: Koa + our middleware, zod input, request hash, schema-checked payload, quote checks, digest, native recovery, Ed25519 seal, saga in 1 atomic append (claim + local settlement + result), no claim read-back (the process holds the log's lock and is its only writer)`,
  bare: 'bare pipeline: Koa + body parser, base64/JSON decode, digest, native recovery, 1 group-committed append (the claim), Ed25519 seal',
  viem: 'bare pipeline verifying with viem verifyTypedData instead of digest + native recovery',
};

interface Measurement {
  role: Role;
  round: number;
  /** 200 answers per second: anything else is not a paid call. */
  okPerSecond: number;
  result?: LoadResult;
  warmUpStatuses?: Record<number, number>;
  error?: string;
}

export default async function run(): Promise<void> {
  const roles = selectedRoles();
  const settings = loadSettings({ DATA_DIR: tmpdir(), LOG_LEVEL: 'silent' });
  const requirements = paymentRequirements(findOperation('veritrack.attest')!, settings);
  const started = process.hrtime.bigint();
  // Every server has its own fresh log, so one pool serves every measurement: within one server
  // no payment is spent twice (warm-up takes the head of the pool, the measurement the rest).
  const payments = presignPayments(requirements, `http://127.0.0.1${PATH}`, WARM_UP.requests + MEASURED.requests);
  console.log(`pre-signed ${payments.length} payments in ${seconds(started).toFixed(1)} s; ${ROUNDS} rounds of ${roles.join(', ')}, ${CONCURRENCY} in flight, at most ${MEASURED.seconds} s or ${MEASURED.requests} calls each`);

  const all: Measurement[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order: no role always runs first (cold disk cache) or right after another.
    const order = roles.map((_, i) => roles[(i + round) % roles.length]!);
    for (const role of order) {
      const m = await measure(role, round, payments);
      all.push(m);
      console.log(`  round ${round + 1} ${role.padEnd(4)} ${m.error ? `FAILED: ${m.error}` : `${m.okPerSecond.toFixed(0)}/s (${m.result!.statuses[200] ?? 0} paid calls in ${m.result!.seconds.toFixed(1)} s)`}`);
      const odd = { ...m.warmUpStatuses, ...m.result?.statuses };
      if (Object.keys(odd).some((code) => code !== '200')) console.log(`    statuses: warm-up ${JSON.stringify(m.warmUpStatuses ?? {})}, measured ${JSON.stringify(m.result?.statuses ?? {})}`);
    }
  }

  const medianOf = (role: Role): number | undefined => {
    const ok = all.filter((m) => m.role === role && !m.error).map((m) => m.okPerSecond);
    return ok.length ? median(ok) : undefined;
  };
  console.log('\nmedians of the rounds (paid calls per second, 200 answers only):');
  for (const role of roles) {
    const value = medianOf(role);
    console.log(`  ${(value === undefined ? 'n/a' : value.toFixed(0)).padStart(6)}/s  ${DESCRIPTIONS[role]}`);
  }
  console.log('  appends per paid call: bare 1 (the claim only, nothing to resume from); the service 1 in local mode for a command without');
  console.log('  domain events (claim + local settlement + sealed result, atomically, durable before the answer), 3 with a settler that');
  console.log('  moves money (claim durable before the transfer, settlement durable before the command, result before the answer)');
  const full = medianOf('full');
  const bare = medianOf('bare');
  const viem = medianOf('viem');
  if (full !== undefined && bare !== undefined) console.log(`ratio service / bare: ${(full / bare).toFixed(2)} (target >= 0.6)`);
  if (full !== undefined && viem !== undefined) console.log(`ratio service / viem: ${viem > 0 ? (full / viem).toFixed(2) : 'n/a (viem made no paid call)'} (target >= 5)`);
}

async function measure(role: Role, round: number, payments: string[]): Promise<Measurement> {
  const profileDir = process.env['PAID_CALL_BENCH_PROFILE'];
  const nodeArgs = role === 'full' && profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
  let server: BenchServer;
  try {
    server = await spawnServer(new URL('./support/paid-server.ts', import.meta.url), { PAID_CALL_BENCH_SERVER: role, ATTESTATION_SECRET: SECRET }, nodeArgs);
  } catch (err) {
    return { role, round, okPerSecond: 0, error: `server did not start: ${(err as Error).message}` };
  }
  try {
    const host = new URL(server.url).hostname;
    if (host !== '127.0.0.1') throw new Error(`server listens on ${host}, not loopback`);
    const call = (from: number, bound: { requests: number; seconds: number }) =>
      bounded(
        load({
          url: server.url,
          method: 'POST',
          pathOf: () => PATH,
          bodyOf: () => BODY,
          headersOf: (i) => ({ 'PAYMENT-SIGNATURE': payments[from + i]! }),
          concurrency: CONCURRENCY,
          maxRequests: Math.min(bound.requests, payments.length - from),
          maxSeconds: bound.seconds,
        }),
        bound.seconds + HANG_SECONDS,
        // A hung server: killing it fails the requests in flight, which ends the load.
        () => server.child.kill('SIGKILL'),
      );
    const warmUp = await call(0, WARM_UP);
    const result = await call(WARM_UP.requests, MEASURED);
    return { role, round, okPerSecond: (result.statuses[200] ?? 0) / result.seconds, result, warmUpStatuses: warmUp.statuses };
  } catch (err) {
    return { role, round, okPerSecond: 0, error: (err as Error).message };
  } finally {
    await stopWithin(server, 10);
  }
}

/** `work`, or a rejection after `limitSeconds` (having called `onTimeout`). */
async function bounded<T>(work: Promise<T>, limitSeconds: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`no end within ${limitSeconds} s`));
    }, limitSeconds * 1000);
  });
  work.catch(() => undefined); // its late failure, after a timeout, is already reported
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGTERM (the server closes its log and removes it), SIGKILL if it does not exit in time. */
async function stopWithin(server: BenchServer, limitSeconds: number): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  await bounded(server.stop(), limitSeconds, () => server.child.kill('SIGKILL')).catch(() => undefined);
}

function selectedRoles(): Role[] {
  const all: Role[] = ['full', 'bare', 'viem'];
  const wanted = process.env['PAID_CALL_BENCH_ROLES']?.split(',').map((r) => r.trim());
  return wanted ? all.filter((r) => wanted.includes(r)) : all;
}

function seconds(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e9;
}
