import { tmpdir } from 'node:os';
import { findOperation } from '../src/catalog/index.ts';
import { loadSettings } from '../src/config.ts';
import { paymentRequirements } from '../src/payments/x402/quote.ts';
import { median, type LoadResult } from './support/load.ts';
import { paidSlice, stopWithin } from './support/paid-slices.ts';
import { cpuSecondsOf, inRounds, list, mainThreadCpuSecondsOf, roundRatios } from './support/rounds.ts';
import { attestBody, ATTEST_PATH, presignPayments } from './support/paid-payments.ts';
import { onLoadCore, spawnServer, type BenchServer } from './support/spawn-server.ts';

/**
 * Paid calls per second over HTTP, loopback, each call with a fresh pre-signed EIP-3009 payment,
 * every server on its own fresh durable file log (bench/support/paid-server.ts says what each
 * does). Targets: service >= 0.8 x bare pipeline, service >= 5 x the viem variant, and service >=
 * 15 x the x402 reference stack (bench/support/x402-reference-server.ts: @x402/express with an
 * in-process x402Facilitator whose settlement touches no chain), all on the same payments.
 *
 * The three servers run side by side for the whole benchmark and are measured in short slices,
 * round after round (bench/support/rounds.ts): the ratios reported are medians of per-round
 * ratios. Each server's CPU time per call is reported too. Every slice is bounded in requests and
 * in time, and a server that stops answering is killed.
 *
 * PAID_CALL_BENCH_PROFILE=<dir>: the service's server (or each of PAID_CALL_BENCH_PROFILE_ROLES=full,bare)
 *   writes a V8 CPU profile there on exit.
 * PAID_CALL_BENCH_ALLOC_PROFILE=<dir>: each of our servers writes <dir>/<role>.heapprofile on exit, the
 *   sampled allocations of the whole run, collected objects included (what a call allocates).
 * PAID_CALL_BENCH_ROLES=full,bare: measure only these (default full, bare, viem and reference; bare-threaded,
 *   the bare pipeline recovering on the service's recovery thread, full-result-only, the service writing
 *   only its result event, and bare-saga, the bare pipeline writing the saga's three events, only when named).
 */
type Role = 'full' | 'full-result-only' | 'bare' | 'bare-threaded' | 'bare-saga' | 'viem' | 'reference';

const SECRET = 'bench-attestation-secret-0123456789abcdef';
const PATH = ATTEST_PATH;
const CONCURRENCY = 64;
const ROUNDS = 9;
/** Long enough for the JIT to settle in every server: the first thousand calls of the service cost twice the later ones. */
const WARM_UP = { requests: 3_000, seconds: 5 };
const SLICE = { requests: 4_000, seconds: 1.5 };

const DESCRIPTIONS: Record<Role, string> = {
  full: `the service, POST ${PATH}, SETTLEMENT=local, file log: Koa + our middleware, zod input, request hash, schema-checked payload, quote checks, digest, native recovery (batched on a thread of its own when calls come together), Ed25519 seal, saga in 1 atomic append (claim + local settlement + result), no claim read-back (the process holds the log's lock and is its only writer)`,
  'full-result-only': "the service, but its store dropping the claim and settlement events from the paid call's append (what those two events cost; not a service to run)",
  bare: 'bare pipeline: Koa + body parser, base64/JSON decode, digest, native recovery on the event loop, 1 group-committed append (the claim), Ed25519 seal',
  'bare-saga': "bare pipeline whose one append holds the service's three saga events (claim, local settlement, sealed result), same shapes and sizes",
  'bare-threaded': 'bare pipeline recovering as the service does (batched on a thread of its own when calls come together)',
  viem: 'bare pipeline verifying with viem verifyTypedData instead of digest + native recovery',
  reference: 'x402 reference stack: Express + @x402/express paymentMiddleware + x402ResourceServer (@x402/evm exact) + in-process x402Facilitator (@x402/evm exact; chain reads answered, settlement a random hash), no log',
};

const SERVER_SCRIPTS: Record<Role, string> = {
  full: './support/paid-server.ts',
  'full-result-only': './support/paid-server.ts',
  bare: './support/paid-server.ts',
  'bare-threaded': './support/paid-server.ts',
  'bare-saga': './support/paid-server.ts',
  viem: './support/paid-server.ts',
  reference: './support/x402-reference-server.ts',
};

interface Running {
  server: BenchServer;
  /** Index of the next unspent payment in the shared pool (each server has its own log). */
  next: number;
  cpuPerCallUs: number[];
  /** The part of it on the main thread (the event loop). */
  mainCpuPerCallUs: number[];
  failed?: string;
}

export default function run(): Promise<void> {
  return onLoadCore(measure);
}

async function measure(): Promise<void> {
  const roles = selectedRoles();
  const settings = loadSettings({ DATA_DIR: tmpdir(), LOG_LEVEL: 'silent' });
  const requirements = paymentRequirements(findOperation('veritrack.attest')!, settings);
  const started = process.hrtime.bigint();
  const payments = presignPayments(requirements, `http://127.0.0.1${PATH}`, WARM_UP.requests + ROUNDS * SLICE.requests);
  console.log(`pre-signed ${payments.length} payments in ${seconds(started).toFixed(1)} s; ${roles.join(', ')} side by side, ${ROUNDS} rounds of slices of at most ${SLICE.seconds} s or ${SLICE.requests} calls, ${CONCURRENCY} in flight`);

  const running = {} as Record<Role, Running>;
  try {
    for (const role of roles) {
      const profileDir = process.env['PAID_CALL_BENCH_PROFILE'];
      const profiled = (process.env['PAID_CALL_BENCH_PROFILE_ROLES'] ?? 'full').split(',').includes(role);
      const nodeArgs = profiled && profileDir ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
      const server = await spawnServer(new URL(SERVER_SCRIPTS[role], import.meta.url), { PAID_CALL_BENCH_SERVER: role, ATTESTATION_SECRET: SECRET }, nodeArgs);
      if (new URL(server.url).hostname !== '127.0.0.1') throw new Error(`server ${role} listens on ${server.url}, not loopback`);
      running[role] = { server, next: 0, cpuPerCallUs: [], mainCpuPerCallUs: [] };
      const warmUp = await slice(running[role], payments, WARM_UP);
      if (Object.keys(warmUp.statuses).some((code) => code !== '200')) console.log(`  warm-up ${role}: statuses ${JSON.stringify(warmUp.statuses)}`);
    }

    const rates = await inRounds(roles, ROUNDS, async (role, round) => {
      const r = running[role];
      if (r.failed) return 0;
      try {
        const pid = r.server.child.pid!;
        const [cpuBefore, mainBefore] = [cpuSecondsOf(pid), mainThreadCpuSecondsOf(pid)];
        const result = await slice(r, payments, SLICE);
        const [cpuAfter, mainAfter] = [cpuSecondsOf(pid), mainThreadCpuSecondsOf(pid)];
        const ok = result.statuses[200] ?? 0;
        if (cpuBefore !== undefined && cpuAfter !== undefined && ok > 0) r.cpuPerCallUs.push(((cpuAfter - cpuBefore) * 1e6) / ok);
        if (mainBefore !== undefined && mainAfter !== undefined && ok > 0) r.mainCpuPerCallUs.push(((mainAfter - mainBefore) * 1e6) / ok);
        const odd = Object.keys(result.statuses).some((code) => code !== '200') ? ` statuses ${JSON.stringify(result.statuses)}` : '';
        console.log(`  round ${round + 1} ${role.padEnd(13)} ${(ok / result.seconds).toFixed(0)}/s (${ok} paid calls in ${result.seconds.toFixed(1)} s)${odd}`);
        return ok / result.seconds;
      } catch (err) {
        r.failed = (err as Error).message;
        console.log(`  round ${round + 1} ${role.padEnd(13)} FAILED: ${r.failed}`);
        return 0;
      }
    });

    console.log('\nmedians of the rounds (paid calls per second, 200 answers only; server CPU time per call, all threads, and of it the main thread):');
    for (const role of roles) {
      const { cpuPerCallUs: cpu, mainCpuPerCallUs: main } = running[role];
      const cpuText = cpu.length ? `${median(cpu).toFixed(0).padStart(5)} us CPU/call${main.length ? ` (main ${median(main).toFixed(0)})` : ''}` : '';
      console.log(`  ${median(rates[role]).toFixed(0).padStart(6)}/s ${cpuText}  ${DESCRIPTIONS[role]}`);
    }
    console.log('  appends per paid call: bare 1 (the claim only, nothing to resume from); the service 1 in local mode for a command without');
    console.log('  domain events (claim + local settlement + sealed result, atomically, durable before the answer), 3 with a settler that');
    console.log('  moves money (claim durable before the transfer, settlement durable before the command, result before the answer)');
    if (rates.full && rates.bare) {
      const { ratios, median: m } = roundRatios(rates.full, rates.bare);
      console.log(`ratio service / bare: ${m.toFixed(2)} (target >= 0.8), median of the rounds' ${list(ratios, 2)}`);
      const [full, bare] = [running.full.cpuPerCallUs, running.bare.cpuPerCallUs];
      if (full.length && bare.length) console.log(`  by CPU time per call, bare / service: ${(median(bare) / median(full)).toFixed(2)}`);
      const [fullMain, bareMain] = [running.full.mainCpuPerCallUs, running.bare.mainCpuPerCallUs];
      if (fullMain.length && bareMain.length && full.length && bare.length) {
        const others = (all: number[], main: number[]) => median(all) - median(main);
        console.log(`  where: main thread ${median(fullMain).toFixed(0)} us (service, its recovery elsewhere) against ${median(bareMain).toFixed(0)} us (bare, its recovery included); other threads ${others(full, fullMain).toFixed(0)} against ${others(bare, bareMain).toFixed(0)} us (the service's recovery thread among them)`);
      }
    }
    if (rates.full && rates['bare-threaded']) {
      const { ratios, median: m } = roundRatios(rates.full, rates['bare-threaded']);
      console.log(`ratio service / bare recovering on a thread (no target; what the same change gives the bare pipeline): ${m.toFixed(2)}, median of the rounds' ${list(ratios, 2)}`);
      const [full, threaded] = [running.full.cpuPerCallUs, running['bare-threaded'].cpuPerCallUs];
      if (full.length && threaded.length) console.log(`  by CPU time per call, bare recovering on a thread / service: ${(median(threaded) / median(full)).toFixed(2)}`);
    }
    if (rates['full-result-only'] && rates.bare) {
      const { ratios, median: m } = roundRatios(rates['full-result-only'], rates.bare);
      console.log(`ratio service without its claim and settlement events / bare (no target; what the saga's two events cost): ${m.toFixed(2)}, median of the rounds' ${list(ratios, 2)}`);
      const [resultOnly, bare] = [running['full-result-only'].cpuPerCallUs, running.bare.cpuPerCallUs];
      if (resultOnly.length && bare.length) console.log(`  by CPU time per call, bare / service without them: ${(median(bare) / median(resultOnly)).toFixed(2)}`);
    }
    if (rates.full && rates['bare-saga']) {
      const { ratios, median: m } = roundRatios(rates.full, rates['bare-saga']);
      console.log(`ratio service / bare writing the saga's three events (no target; like for like in durable work): ${m.toFixed(2)}, median of the rounds' ${list(ratios, 2)}`);
      const [full, saga] = [running.full.cpuPerCallUs, running['bare-saga'].cpuPerCallUs];
      if (full.length && saga.length) console.log(`  by CPU time per call, bare writing the saga's events / service: ${(median(saga) / median(full)).toFixed(2)}`);
    }
    if (rates.full && rates.viem) {
      const { ratios, median: m } = roundRatios(rates.full, rates.viem);
      console.log(`ratio service / viem: ${m.toFixed(2)} (target >= 5), median of the rounds' ${list(ratios, 2)}`);
    }
    if (rates.full && rates.reference) {
      const { ratios, median: m } = roundRatios(rates.full, rates.reference);
      console.log(`ratio service / x402 reference stack: ${m.toFixed(1)} (target >= 15), median of the rounds' ${list(ratios, 1)}`);
      const [full, reference] = [running.full.cpuPerCallUs, running.reference.cpuPerCallUs];
      if (full.length && reference.length) console.log(`  by CPU time per call, reference / service: ${(median(reference) / median(full)).toFixed(1)}`);
    }
  } finally {
    for (const role of roles) if (running[role]) await stopWithin(running[role].server, 10);
  }
}

function selectedRoles(): Role[] {
  const all: Role[] = ['full', 'full-result-only', 'bare', 'bare-threaded', 'bare-saga', 'viem', 'reference'];
  const onRequestOnly: Role[] = ['full-result-only', 'bare-threaded', 'bare-saga'];
  const wanted = process.env['PAID_CALL_BENCH_ROLES']?.split(',').map((r) => r.trim());
  return wanted ? all.filter((r) => wanted.includes(r)) : all.filter((r) => !onRequestOnly.includes(r));
}

const slice = (r: Running, payments: string[], bound: { requests: number; seconds: number }): Promise<LoadResult> =>
  paidSlice(r, { path: PATH, body: attestBody, concurrency: CONCURRENCY }, payments, bound);

function seconds(since: bigint): number {
  return Number(process.hrtime.bigint() - since) / 1e9;
}
