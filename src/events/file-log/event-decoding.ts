import { isJsonObject, type JsonObject } from '../../signing/rfc8785.ts';
import { containerStartBefore } from '../json-object-members.ts';
import type { RecordedEvent } from '../port.ts';
import { eventWithDataParsedOnRead } from '../unparsed-event-data.ts';
import { decodeRecord, FRAME_HEADER_BYTES } from './framing.ts';
import { readRecordFields } from './record-head.ts';

/**
 * Records from this many payload bytes on are decoded with their data left as text, parsed when
 * something reads it (unparsed-event-data.ts): a ResultSigned event of 11 MB took 85-190 ms to
 * parse on the event loop, and 50-100 ms more of garbage collection, for a result log that reads
 * three short members of it. Below this, parsing the record whole costs less than a tenth of a
 * millisecond and is kept: the usual event takes no detour.
 */
export const DATA_PARSED_ON_READ_BYTES = 64 * 1024;

const METADATA_MEMBER = Buffer.from(',"m":');
const CLOSE_BRACE = 0x7d;

/**
 * Decodes the checked record payload of the frame at `frameOffset` of `bytes`. A large record in
 * the form framing.ts writes gets its data as a copy of its text, so that `bytes` may be reused;
 * anything else is parsed whole (decodeRecord), which also refuses what is not an event record.
 */
export function decodeEvent(bytes: Buffer, frameOffset: number, payloadLength: number): RecordedEvent {
  if (payloadLength >= DATA_PARSED_ON_READ_BYTES) {
    const event = decodeLeavingDataUnparsed(bytes, frameOffset + FRAME_HEADER_BYTES, payloadLength);
    if (event) return event;
  }
  return decodeRecord(bytes, frameOffset, payloadLength);
}

/**
 * The members before the data are read from the start (record-head.ts), the metadata (the last
 * member, `,"m":{…}}`) from the end; the data is what lies between, never looked at here.
 */
function decodeLeavingDataUnparsed(bytes: Buffer, start: number, payloadLength: number): RecordedEvent | undefined {
  const end = start + payloadLength;
  const fields = readRecordFields(bytes, start, end);
  if (!fields || bytes[end - 1] !== CLOSE_BRACE) return undefined;
  const metadataStart = containerStartBefore(bytes, end - 2, fields.dataStart);
  const dataEnd = metadataStart === undefined ? undefined : metadataStart - METADATA_MEMBER.length;
  if (metadataStart === undefined || dataEnd === undefined || dataEnd <= fields.dataStart || !bytes.subarray(dataEnd, metadataStart).equals(METADATA_MEMBER)) return undefined;
  const metadata = parseMetadata(bytes.toString('utf8', metadataStart, end - 1));
  if (!metadata) return undefined;
  return eventWithDataParsedOnRead(
    {
      id: fields.id,
      type: fields.type,
      metadata,
      stream: fields.stream,
      revision: BigInt(fields.revision),
      position: BigInt(fields.position),
      recordedAt: fields.recordedAt,
    },
    Buffer.from(bytes.subarray(fields.dataStart, dataEnd)),
  );
}

function parseMetadata(text: string): JsonObject | undefined {
  try {
    const metadata: unknown = JSON.parse(text);
    return isJsonObject(metadata) ? metadata : undefined;
  } catch {
    return undefined;
  }
}
