import { PAYMENT_IDENTIFIER } from '@x402/extensions/payment-identifier';
import { describe, expect, it } from 'vitest';
import { PAYMENT_IDENTIFIER_KEY, quoteLibraries } from './quote-libraries.ts';

describe('the x402 quote libraries, loaded on first use', () => {
  it('name the payment-identifier extension as the library does', () => {
    expect(PAYMENT_IDENTIFIER_KEY).toBe(PAYMENT_IDENTIFIER);
  });

  it('load once: every caller gets the same modules', async () => {
    const [first, second] = await Promise.all([quoteLibraries(), quoteLibraries()]);
    expect(first).toBe(second);
    expect(typeof first.coreHttp.encodePaymentRequiredHeader).toBe('function');
    expect(typeof first.bazaar.declareDiscoveryExtension).toBe('function');
    expect(first.paymentIdentifier.isValidPaymentId('a'.repeat(16))).toBe(true);
    expect(first.paymentIdentifier.isValidPaymentId('short')).toBe(false);
  });
});
