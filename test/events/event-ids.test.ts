import { v5 as uuidv5 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { eventId } from '../../src/events/event-ids.ts';

const NAMESPACE = '6f1c2b1e-2a57-4f6e-9c39-0b8f5f4f2d11';

describe('eventId', () => {
  // Ids already in logs must never change: the hand-built v5 must equal the uuid package's.
  const cases: Array<[string, string, number]> = [
    ['payment-0x1111111111111111111111111111111111111111-0x' + 'ab'.repeat(32), 'PaymentAuthorized', 0],
    ['payment-0xabc-0xdef', 'PaymentSettled', 0],
    ['payment-0xabc-0xdef', 'ResultSigned', 0],
    ['payment-x/0123abcd', 'PaymentIdentifierBound', 0],
    ['origin', 'memory-agent-1/MemoryPut', 7],
    ['', '', 0],
    ['ünïcødé ✓ 🚀', 'type with spaces', 123456],
    ['a'.repeat(1000), 'b'.repeat(300), 2],
  ];
  it.each(cases)('equals uuid v5 for %#', (origin, type, index) => {
    expect(eventId(origin, type, index)).toBe(uuidv5(`${origin}\u0000${type}\u0000${index}`, NAMESPACE));
  });

  it('defaults the index to 0 and covers every nibble of the version and variant bytes', () => {
    expect(eventId('o', 't')).toBe(uuidv5('o\u0000t\u00000', NAMESPACE));
    for (let i = 0; i < 500; i++) expect(eventId(`origin-${i}`, 'T', i)).toBe(uuidv5(`origin-${i}\u0000T\u0000${i}`, NAMESPACE));
  });
});
