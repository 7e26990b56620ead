import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dataMembers } from '../unparsed-event-data.ts';
import { DATA_PARSED_ON_READ_BYTES, decodeEvent } from './event-decoding.ts';
import { decodeRecord, FRAME_HEADER_BYTES } from './framing.ts';

/** A frame holding `payload` as framing.ts lays it out (the checksum is not read by the decoders). */
function frame(payload: string): Buffer {
  return Buffer.concat([Buffer.alloc(FRAME_HEADER_BYTES), Buffer.from(payload, 'utf8')]);
}

const tricky = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('"', '\\', '{"m":{}}', ',"m":', '}'));
const padding = 'p'.repeat(DATA_PARSED_ON_READ_BYTES);
const largeRecord = fc.record({
  p: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  s: fc.oneof(tricky, fc.constant('payment-0xab-0xcd')),
  r: fc.nat({ max: 1_000_000 }),
  i: fc.oneof(fc.uuid(), tricky),
  t: fc.oneof(fc.constant('ResultSigned'), tricky),
  a: fc.nat(),
  d: fc.record({ small: fc.jsonValue(), large: fc.constant(padding), last: tricky }),
  m: fc.dictionary(tricky, fc.jsonValue()),
});

describe('decoding a large record, its data left as text', () => {
  it('gives what parsing the whole record gives, for any fields, data and metadata', () => {
    fc.assert(
      fc.property(largeRecord, (r) => {
        const bytes = frame(JSON.stringify(r));
        const payload = bytes.length - FRAME_HEADER_BYTES;
        const event = decodeEvent(bytes, 0, payload);
        expect(dataMembers(event, ['last'])).toEqual({ last: r.d.last });
        bytes.fill(0); // the live path reuses the batch's buffer: the event must not read it later
        expect(event).toEqual(decodeRecord(frame(JSON.stringify(r)), 0, payload));
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a payload that is not an event record, as the full parse does', () => {
    for (const payload of [`{"x":"${padding}"}`, `{"p":1,"s":"a","r":0,"i":"b","t":"c","a":1,"d":"${padding}"}`, `{"p":1,"s":"a","r":0,"i":"b","t":"c","a":1,"d":"${padding}","m":[]}`]) {
      const bytes = frame(payload);
      expect(() => decodeEvent(bytes, 0, bytes.length - FRAME_HEADER_BYTES)).toThrow();
    }
  });
});
