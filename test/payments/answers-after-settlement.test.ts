import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config.ts';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import { EventStoreUnavailableError, type EventStore } from '../../src/events/port.ts';
import { createLogger } from '../../src/logger.ts';
import { createGateway } from '../../src/payments/gateway.ts';
import { PAYMENT_EVENT_TYPES } from '../../src/payments/saga/events.ts';
import { localSettlement } from '../../src/payments/settlers/local.ts';
import type { Settler } from '../../src/payments/settlers/settler.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { TEST_SECRET } from '../support/service.ts';
import { fetchQuote, signPayment } from '../support/x402-payments.ts';

/** A store whose next ResultSigned append fails as a full disk's would, once armed. */
function storeFailingResultOnce(store: EventStore): EventStore & { arm(): void } {
  let armed = false;
  return Object.assign(Object.create(store) as EventStore, {
    arm: () => {
      armed = true;
    },
    async appendToStream(stream: string, events: Parameters<EventStore['appendToStream']>[1], options: Parameters<EventStore['appendToStream']>[2]) {
      if (armed && events.some((e) => e.type === PAYMENT_EVENT_TYPES.signed)) {
        armed = false;
        throw new EventStoreUnavailableError('no space left on device');
      }
      return store.appendToStream(stream, events, options);
    },
  });
}

describe('every answer after settlement tells the truth', () => {
  let service: RunningService;
  let store: ReturnType<typeof storeFailingResultOnce>;
  let dataDir: string;
  let transfers = 0;
  const settler: Settler = {
    mode: 'onchain',
    async verify() {},
    async settle(payment) {
      transfers++;
      return { ...localSettlement(payment), mode: 'onchain', demo: false };
    },
    async findSettled() {
      return undefined;
    },
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'attest-truth-'));
    const settings = loadSettings({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', ATTESTATION_SECRET: TEST_SECRET });
    store = storeFailingResultOnce(createMemoryEventStore());
    service = await startService(settings, store, createLogger(settings), { payments: createGateway(settler) });
  });
  afterAll(async () => {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a store failure after the transfer answers 503 saying the payment was taken; the same payment then completes the call, charged once', async () => {
    const url = `${service.url}/v1/veritrack/attest`;
    const body = JSON.stringify({ kind: 'model-eval', claim: { model: 'a' } });
    const init = (payment?: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json', ...(payment ? { 'PAYMENT-SIGNATURE': payment } : {}) }, body });
    const p = await signPayment(await fetchQuote(url, init()));

    store.arm();
    const failed = await fetch(url, init(p.header));
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('5');
    const problem = (await failed.json()) as { message: string };
    expect(problem.message).toContain('the payment was taken');
    expect(problem.message).not.toContain('nothing was charged');

    const retried = await fetch(url, init(p.header));
    expect(retried.status).toBe(200);
    expect(transfers).toBe(1);
  });
});
