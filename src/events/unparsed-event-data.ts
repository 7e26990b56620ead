import type { JsonValue } from '../signing/rfc8785.ts';
import { topLevelScalarMembers } from './json-object-members.ts';
import type { RecordedEvent } from './port.ts';

/** The data text of each event whose data has not been parsed yet (dropped when it is). */
const unparsedTexts = new WeakMap<RecordedEvent, Buffer>();

/**
 * An event whose data is parsed from `dataText` (its JSON text) when `data` is first read, not
 * before: a store reading a large event (a signed record of megabytes) for a reader that wants
 * only its small members, or nothing of its data, does not parse it on the event loop. Once read,
 * `data` is a plain property holding the parsed value, as on any other event; before, it is an
 * accessor (enumerable, so that copying, comparing and serialising the event read it).
 * `dataText` must be the event's own bytes: nothing else may change them.
 */
export function eventWithDataParsedOnRead(fields: Omit<RecordedEvent, 'data'>, dataText: Buffer): RecordedEvent {
  const settle = (data: JsonValue): JsonValue => {
    Object.defineProperty(event, 'data', { value: data, writable: true, enumerable: true, configurable: true });
    unparsedTexts.delete(event);
    return data;
  };
  const event: RecordedEvent = {
    id: fields.id,
    type: fields.type,
    get data(): JsonValue {
      return settle(parseData(fields, dataText));
    },
    set data(data: JsonValue) {
      settle(data);
    },
    metadata: fields.metadata,
    stream: fields.stream,
    revision: fields.revision,
    position: fields.position,
    recordedAt: fields.recordedAt,
  };
  unparsedTexts.set(event, dataText);
  return event;
}

/**
 * The top-level members `names` of an event's data (absent ones left out), read without parsing
 * the rest of an unparsed data text when they are among its small members
 * (json-object-members.ts); otherwise read from `data`, parsing it if need be.
 */
export function dataMembers(event: RecordedEvent, names: readonly string[]): Partial<Record<string, JsonValue>> {
  const text = unparsedTexts.get(event);
  const read = text && topLevelScalarMembers(text, names);
  if (read) return Object.fromEntries(read);
  const data = event.data;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return {};
  const members: Partial<Record<string, JsonValue>> = {};
  for (const name of names) if (Object.hasOwn(data, name)) members[name] = data[name];
  return members;
}

function parseData(event: Omit<RecordedEvent, 'data'>, dataText: Buffer): JsonValue {
  try {
    const data: JsonValue = JSON.parse(dataText.toString('utf8'));
    return data;
  } catch (err) {
    throw new Error(`event ${event.id} at position ${event.position}: its data is not JSON (${(err as Error).message})`, { cause: err });
  }
}
