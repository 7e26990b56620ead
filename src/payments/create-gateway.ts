import type { Settings } from '../config.ts';
import type { PaymentGateway } from './gateway.ts';
import { createGateway } from './gateway.ts';
import type { Settler } from './settlers/settler.ts';
import { createFacilitatorSettler } from './settlers/facilitator.ts';
import { createLocalSettler } from './settlers/local.ts';
import { createOnchainSettler } from './settlers/onchain.ts';

/** The settler SETTLEMENT names: local (the default, demo), facilitator, or onchain. */
export async function createSettler(settings: Settings): Promise<Settler> {
  switch (settings.SETTLEMENT) {
    case 'local':
      return createLocalSettler();
    case 'facilitator':
      return createFacilitatorSettler(settings);
    case 'onchain':
      return createOnchainSettler(settings);
  }
}

/** The configured payment gateway: our own verification, the paid-call saga, and the configured settler. */
export async function createPaymentGateway(settings: Settings): Promise<PaymentGateway> {
  return createGateway(await createSettler(settings));
}
