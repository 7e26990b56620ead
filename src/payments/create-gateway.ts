import type { Settings } from '../config.ts';
import type { PaymentGateway } from './gateway.ts';
import { createGateway } from './gateway.ts';
import type { Settler } from './settlers/settler.ts';
import { createLocalSettler } from './settlers/local.ts';

/** The settler SETTLEMENT names: local (the default, demo), facilitator, or onchain. */
export async function createSettler(settings: Settings): Promise<Settler> {
  switch (settings.SETTLEMENT) {
    case 'local':
      return createLocalSettler();
    case 'facilitator':
      // viem and the chain clients load only for the modes that use them: start-up stays short.
      return (await import('./settlers/facilitator.ts')).createFacilitatorSettler(settings);
    case 'onchain':
      return (await import('./settlers/onchain.ts')).createOnchainSettler(settings);
  }
}

/** The configured payment gateway: our own verification, the paid-call saga, and the configured settler. */
export async function createPaymentGateway(settings: Settings): Promise<PaymentGateway> {
  return createGateway(await createSettler(settings));
}
