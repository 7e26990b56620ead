import { loadSettings } from '../../src/config.ts';
import type { CallContext } from '../../src/kernel/operation.ts';
import { createMemoryEventStore } from '../../src/events/memory-store.ts';
import type { EventStore } from '../../src/events/port.ts';
import { paymentStreamName } from '../../src/payments/saga/events.ts';
import { createStatsReader } from '../../src/projections/public-stats.ts';
import { createKeyring } from '../../src/signing/keyring.ts';
import { TEST_SECRET } from './service.ts';

export const PAYER_A = '0x1111111111111111111111111111111111111111';
export const PAYER_B = '0x2222222222222222222222222222222222222222';

let nonceCounter = 0;

/** A CallContext as the saga builds it, for calling commands directly in tests. */
export function testCallContext(overrides: Partial<CallContext> & { store?: EventStore } = {}): CallContext {
  const store = overrides.store ?? createMemoryEventStore();
  const payer = overrides.payer ?? PAYER_A;
  const nonce = `0x${(++nonceCounter).toString(16).padStart(64, '0')}`;
  return {
    store,
    keyring: createKeyring(TEST_SECRET),
    settings: loadSettings({ DATA_DIR: '/nonexistent', LOG_LEVEL: 'silent', ATTESTATION_SECRET: TEST_SECRET }),
    baseUrl: 'http://127.0.0.1:4021',
    stats: createStatsReader(() => ({ paidCalls: 0, revenueAtomic: '0' }), 30),
    now: 1_767_225_600,
    payer,
    paymentId: paymentStreamName(payer, nonce),
    ...overrides,
  };
}
