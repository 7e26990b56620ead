import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeRecord, FRAME_HEADER_BYTES } from './framing.ts';
import { decodeRecordHead } from './record-head.ts';

/** A frame holding `payload` as framing.ts lays it out (the checksum is not read by the decoders). */
function frame(payload: string): Buffer {
  const body = Buffer.from(payload, 'utf8');
  return Buffer.concat([Buffer.alloc(FRAME_HEADER_BYTES), body]);
}

const record = fc.record({
  p: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  s: fc.oneof(fc.string({ minLength: 1 }), fc.string({ unit: 'binary', minLength: 1 }), fc.constant('payment-0xab-0xcd')),
  r: fc.nat({ max: 1_000_000 }),
  i: fc.oneof(fc.uuid(), fc.string(), fc.string({ unit: 'binary' })),
  t: fc.string({ minLength: 1 }),
  a: fc.nat(),
  d: fc.jsonValue(),
  m: fc.constant({}),
});

describe('reading a record head without parsing its data', () => {
  it('gives what parsing the whole record gives, for any stream name and id (escapes and non-ASCII included)', () => {
    fc.assert(
      fc.property(record, (r) => {
        const bytes = frame(JSON.stringify(r));
        const whole = decodeRecord(bytes, 0, bytes.length - FRAME_HEADER_BYTES);
        expect(decodeRecordHead(bytes, 0, bytes.length - FRAME_HEADER_BYTES)).toEqual({ position: Number(whole.position), stream: whole.stream, revision: Number(whole.revision), id: whole.id });
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a payload that is not an event record, as the full parse does', () => {
    for (const payload of ['{"x":1}', '{"p":1,"s":"a"}', '{"p":1,"s":"a","r":0,"i":"b","t":"c"', '[1,2]']) {
      const bytes = frame(payload);
      expect(() => decodeRecordHead(bytes, 0, bytes.length - FRAME_HEADER_BYTES)).toThrow();
    }
  });
});
