import type { Settings } from '../../config.ts';
import { SettlementError, type Settler } from '../settler.ts';

/** Settlement through an x402 facilitator's HTTP API at FACILITATOR_URL. (Being built.) */
export function createFacilitatorSettler(settings: Settings): Settler {
  if (!settings.FACILITATOR_URL) throw new Error('FACILITATOR_URL is required when SETTLEMENT=facilitator');
  const notYet = () => Promise.reject(new SettlementError('unexpected_settle_error', 'facilitator settlement is not built yet', true));
  return { mode: 'facilitator', verify: notYet, settle: notYet, findSettled: async () => undefined };
}
