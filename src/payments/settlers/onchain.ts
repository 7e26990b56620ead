import type { Settings } from '../../config.ts';
import { SettlementError, type Settler } from '../settler.ts';

/** Settlement submitted by the service itself with its relayer key. (Being built.) */
export async function createOnchainSettler(settings: Settings): Promise<Settler> {
  if (!settings.RPC_URL || !settings.RELAYER_PRIVATE_KEY) throw new Error('RPC_URL and RELAYER_PRIVATE_KEY are required when SETTLEMENT=onchain');
  const notYet = () => Promise.reject(new SettlementError('unexpected_settle_error', 'on-chain settlement is not built yet', true));
  return { mode: 'onchain', verify: notYet, settle: notYet, findSettled: async () => undefined };
}
