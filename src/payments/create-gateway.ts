import type { Settings } from '../config.ts';
import type { PaymentGateway } from './gateway.ts';
import { HttpProblem } from '../http/problem.ts';

/**
 * The configured payment gateway. Payment verification and settlement are built by the payments
 * work; until then a payment is refused with a clear 402, and nothing is charged.
 */
export async function createPaymentGateway(_settings: Settings): Promise<PaymentGateway> {
  return {
    async handle() {
      throw new HttpProblem(402, 'payment_not_supported', 'payment verification is not built yet; nothing was charged');
    },
  };
}
