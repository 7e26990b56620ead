import type * as CoreHttp from '@x402/core/http';
import type * as Bazaar from '@x402/extensions/bazaar';
import type * as PaymentIdentifier from '@x402/extensions/payment-identifier';
import { once } from '../../kernel/once.ts';

/**
 * The x402 libraries that only a quote (a 402 answer, the x402 discovery manifest) or a payment
 * carrying a payment identifier needs. They load on first use, not at start: the extensions bring
 * Ajv and, with @x402/core/http, a second copy of zod (v3): 45-90 of the 900-1,000 ms a start
 * took before /health answered, and a paid call without an identifier needs none of them.
 */
export interface QuoteLibraries {
  coreHttp: typeof CoreHttp;
  bazaar: typeof Bazaar;
  paymentIdentifier: typeof PaymentIdentifier;
}

/** The payment-identifier extension's key in a payload's `extensions` (the library's PAYMENT_IDENTIFIER; a test holds them equal). */
export const PAYMENT_IDENTIFIER_KEY = 'payment-identifier';

export const quoteLibraries = once(
  async (): Promise<QuoteLibraries> => {
    const [coreHttp, bazaar, paymentIdentifier] = await Promise.all([import('@x402/core/http'), import('@x402/extensions/bazaar'), import('@x402/extensions/payment-identifier')]);
    return { coreHttp, bazaar, paymentIdentifier };
  },
);
