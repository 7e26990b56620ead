import type { SettleResponse } from '@x402/core/types';

/**
 * The PAYMENT-RESPONSE header value: standard base64 of the UTF-8 JSON SettlementResponse, as
 * @x402/core's encodePaymentResponseHeader produces it (we never set extensionResponses, which it
 * drops), without its character-by-character btoa.
 */
export function encodeSettleResponse(response: SettleResponse): string {
  return Buffer.from(JSON.stringify(response), 'utf8').toString('base64');
}
