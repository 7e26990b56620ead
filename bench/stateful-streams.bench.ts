import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importCompiled } from './support/compiled.ts';
import { presignPayments } from './support/paid-payments.ts';

/**
 * Operations that keep state, each writing again and again to one stream (one memory store, one
 * catalogue entry, one agent's containment, one agent's budget): the mean time of a paid call in each quarter of
 * WRITES calls, over HTTP, one at a time, the service compiled and in this process. Target: flat,
 * the last quarter within 1.5x of the first (a call reads only what was appended since the last
 * one: src/kernel/decider.ts). Before, each call read and folded its whole stream.
 */
const WRITES = 800;
const WARM_UP = 150;
/** Each operation's example, but for the spend governor a cap that every reserve of the run fits in. */
const OPERATIONS: Record<string, (example: Record<string, unknown>) => Record<string, unknown>> = {
  'memory.put': (example) => example,
  'verify-catalog.register': (example) => example,
  'containment.register': (example) => example,
  'governance.reserve': (example) => ({ ...example, budget: { cap: '1000000', period: 86_400 } }),
};

const { findOperation } = await importCompiled<typeof import('../src/catalog/index.ts')>('catalog/index.js');
const { loadSettings } = await importCompiled<typeof import('../src/config.ts')>('config.js');
const { openEventStore } = await importCompiled<typeof import('../src/events/open-store.ts')>('events/open-store.js');
const { createLogger } = await importCompiled<typeof import('../src/logger.ts')>('logger.js');
const { paymentRequirements } = await importCompiled<typeof import('../src/payments/x402/quote.ts')>('payments/x402/quote.js');
const { startService } = await importCompiled<typeof import('../src/service.ts')>('service.js');

export default async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-stateful-'));
  const settings = loadSettings({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', SETTLEMENT: 'local', ATTESTATION_SECRET: 'bench-attestation-secret-0123456789abcdef' });
  const log = createLogger(settings);
  const store = await openEventStore(settings, log);
  const service = await startService(settings, store, log);
  try {
    console.log(`${WRITES} paid writes to one stream after ${WARM_UP}, one at a time; mean ms a call in each quarter (target: last <= 1.5x first)`);
    for (const [id, bodyOf] of Object.entries(OPERATIONS)) {
      const op = findOperation(id)!;
      const body = JSON.stringify(bodyOf(op.example as Record<string, unknown>));
      // One payer for every call: the stream stays that payer's (memory, containment).
      const payments = presignPayments(paymentRequirements(op, settings), `${service.url}${op.path}`, WARM_UP + WRITES);
      const call = async (i: number): Promise<void> => {
        const res = await fetch(service.url + op.path, { method: op.method, headers: { 'content-type': 'application/json', 'payment-signature': payments[i]! }, body });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${id}: call ${i} answered ${res.status}`);
      };
      for (let i = 0; i < WARM_UP; i++) await call(i);
      const quarters: number[] = [];
      for (let q = 0; q < 4; q++) {
        const started = performance.now();
        for (let i = 0; i < WRITES / 4; i++) await call(WARM_UP + q * (WRITES / 4) + i);
        quarters.push((performance.now() - started) / (WRITES / 4));
      }
      const growth = quarters[3]! / quarters[0]!;
      console.log(`  ${id.padEnd(26)} ${quarters.map((ms) => ms.toFixed(1).padStart(6)).join(' ')} ms   last / first ${growth.toFixed(2)} (${growth <= 1.5 ? 'met' : 'NOT MET'})`);
    }
  } finally {
    await service.close();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
