import { tmpdir } from 'node:os';
import { findOperation } from '../src/catalog/index.ts';
import { loadSettings } from '../src/config.ts';
import { CV_SCREENING_EXAMPLE } from '../src/families/security/compliance-check/operation.ts';
import { paymentRequirements } from '../src/payments/x402/quote.ts';
import { lockfileOf } from './support/lockfile.ts';
import { median } from './support/load.ts';
import { paidSlice, stopWithin, type PaidCall, type PaidTarget } from './support/paid-slices.ts';
import { presignPayments } from './support/paid-payments.ts';
import { inRounds, list, roundRatios } from './support/rounds.ts';
import { onLoadCore, spawnServer } from './support/spawn-server.ts';

/**
 * Paid calls per second of compliance/check and of dependency-risk over a 2,000-package lockfile,
 * beside veritrack/attest, on one service (SETTLEMENT=local, file log), interleaved in rounds:
 * what the heavier security engines cost a paid call.
 */
type Role = 'veritrack' | 'compliance' | 'dependency-risk';
const OPERATIONS: Record<Role, { id: string; body: unknown }> = {
  veritrack: { id: 'veritrack.attest', body: { kind: 'model-eval', claim: { model: 'example-7b', benchmark: 'arc-easy', score: 0.81 } } },
  compliance: { id: 'compliance.check', body: CV_SCREENING_EXAMPLE },
  'dependency-risk': { id: 'security.dependency-risk', body: lockfileOf(2_000) },
};
const ROUNDS = 5;
const SLICE = { requests: 2_000, seconds: 1.5 };
const WARM_UP = { requests: 500, seconds: 3 };

export default function run(): Promise<void> {
  return onLoadCore(measure);
}

async function measure(): Promise<void> {
  const settings = loadSettings({ DATA_DIR: tmpdir(), LOG_LEVEL: 'silent' });
  const roles = Object.keys(OPERATIONS) as Role[];
  const calls = {} as Record<Role, { call: PaidCall; payments: string[]; target: PaidTarget }>;
  const server = await spawnServer(new URL('./support/paid-server.ts', import.meta.url), { PAID_CALL_BENCH_SERVER: 'full', ATTESTATION_SECRET: 'bench-attestation-secret-0123456789abcdef' });
  try {
    for (const role of roles) {
      const op = findOperation(OPERATIONS[role].id);
      if (!op || op.kind !== 'priced') throw new Error(`no priced operation ${OPERATIONS[role].id}`);
      const payments = presignPayments(paymentRequirements(op, settings), `http://127.0.0.1${op.path}`, WARM_UP.requests + ROUNDS * SLICE.requests);
      const body = JSON.stringify(OPERATIONS[role].body);
      calls[role] = { call: { path: op.path, body, concurrency: 16 }, payments, target: { server, next: 0 } };
      const warm = await paidSlice(calls[role].target, calls[role].call, payments, WARM_UP);
      console.log(`  ${role}: body ${(body.length / 1024).toFixed(0)} KiB, warm-up statuses ${JSON.stringify(warm.statuses)}`);
    }
    const rates = await inRounds(roles, ROUNDS, async (role, round) => {
      const { call, payments, target } = calls[role];
      const result = await paidSlice(target, call, payments, SLICE);
      const ok = result.statuses[200] ?? 0;
      console.log(`  round ${round + 1} ${role.padEnd(15)} ${(ok / result.seconds).toFixed(0)}/s`);
      return ok / result.seconds;
    });
    console.log('paid calls per second, medians of the rounds (one service, 16 in flight):');
    for (const role of roles) console.log(`  ${role.padEnd(15)} ${median(rates[role]).toFixed(0)}/s`);
    for (const role of ['compliance', 'dependency-risk'] as const) {
      const { ratios, median: m } = roundRatios(rates[role], rates.veritrack);
      console.log(`  ${role} / veritrack: ${m.toFixed(3)} (rounds ${list(ratios, 3)})`);
    }
  } finally {
    await stopWithin(server, 10);
  }
}
