import { describe, expect, it } from 'vitest';
import { decodePaymentHeader } from '../../src/payments/x402/decode.ts';
import { PAYMENT_REASONS, PaymentRejected } from '../../src/payments/x402/reasons.ts';

const reasonOf = (value: string): string | undefined => {
  try {
    decodePaymentHeader('PAYMENT-SIGNATURE', value);
    return undefined;
  } catch (err) {
    return err instanceof PaymentRejected ? err.reason : 'threw something else';
  }
};

// A JSON text whose base64 has padding and uses both '+' and '/': "{"x402Version":2,"k":"??>>"}".
const json = '{"x402Version":2,"k":"??>>~"}';
const standard = Buffer.from(json).toString('base64');

describe('decoding the payment header', () => {
  it('the fixture exercises the characters that differ between the two base64 alphabets', () => {
    expect(standard).toMatch(/[+/]/);
    expect(standard).toMatch(/=$/);
  });

  it('standard base64 of a JSON object decodes (surrounding whitespace trimmed) to the schema check', () => {
    expect(reasonOf(standard)).toBe(PAYMENT_REASONS.payload);
    expect(reasonOf(`  ${standard}\n`)).toBe(PAYMENT_REASONS.payload);
  });

  it('anything but standard base64 is a payload-encoding problem, even where Buffer would decode it', () => {
    const bad = [
      '',
      'not*base64!',
      standard.replace(/=+$/, ''), // padding dropped
      standard.replaceAll('+', '-').replaceAll('/', '_'), // URL-safe alphabet
      `${standard.slice(0, 8)} ${standard.slice(8)}`, // whitespace inside
      `${standard.slice(0, 8)}=${standard.slice(8)}`, // padding inside
      `${standard.slice(0, 8)}*${standard.slice(8)}`, // a stray character
    ];
    for (const value of bad) expect(reasonOf(value), value).toBe(PAYMENT_REASONS.payloadEncoding);
  });

  it('base64 of something that is not JSON, or not an object, has its own reason', () => {
    expect(reasonOf(Buffer.from('{"x402Version": 2,').toString('base64'))).toBe(PAYMENT_REASONS.payloadJson);
    expect(reasonOf(Buffer.from('[1]').toString('base64'))).toBe(PAYMENT_REASONS.payload);
    // Not UTF-8 (Latin-1 in a string): refused, not read with U+FFFD in its place.
    expect(reasonOf(Buffer.from('{"x402Version":2,"memo":"caf\xe9"}', 'latin1').toString('base64'))).toBe(PAYMENT_REASONS.payloadJson);
  });
});
