import {
  ANY,
  BACKWARDS,
  DeadlineExceededError,
  END,
  FORWARDS,
  NO_STREAM,
  NotLeaderError,
  START,
  STREAM_EXISTS,
  UnavailableError,
  WrongExpectedVersionError,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type CurrentRevision,
  type JSONEventData,
  type JSONType,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import type { JsonObject, JsonValue } from '../../signing/rfc8785.ts';
import {
  EventStoreUnavailableError,
  WrongExpectedRevisionError,
  type EventData,
  type ExpectedRevision,
  type RecordedEvent,
} from '../port.ts';

/** Our expected revision -> the client's. "exists" is the client's STREAM_EXISTS. */
export function toClientExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'exists') return STREAM_EXISTS;
  if (expected === 'any') return ANY;
  return expected;
}

/** The client's expected revision (as reported in WrongExpectedVersion) -> ours. */
export function fromClientExpectedRevision(expected: AppendExpectedRevision): ExpectedRevision {
  if (expected === NO_STREAM) return 'no_stream';
  if (expected === STREAM_EXISTS) return 'exists';
  if (expected === ANY) return 'any';
  return expected;
}

function fromCurrentRevision(current: CurrentRevision): bigint | 'no_stream' {
  return current === NO_STREAM ? 'no_stream' : current;
}

export function toClientEvent(event: EventData): JSONEventData {
  return {
    id: event.id,
    contentType: 'application/json',
    type: event.type,
    // The client types JSON data as object, array or string, but sends JSON.stringify of
    // whatever it is given; every JsonValue round-trips.
    data: event.data as JSONType,
    metadata: event.metadata ?? {},
  };
}

/** gRPC status codes that mean "cannot reach a leader right now": 4 DEADLINE_EXCEEDED, 14 UNAVAILABLE. */
const UNAVAILABLE_GRPC_CODES = new Set([4, 14]);
const NETWORK_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE']);

/**
 * Maps the client's failures onto the port's: WrongExpectedVersion -> WrongExpectedRevisionError;
 * an unreachable server, whether the client typed it (UnavailableError, DeadlineExceededError,
 * NotLeaderError during an election) or passed on a plain gRPC/network error -> EventStoreUnavailableError.
 * Anything else is returned as is.
 */
export function mapClientError(err: unknown, stream: string, expected?: ExpectedRevision): unknown {
  if (err instanceof WrongExpectedVersionError) {
    return new WrongExpectedRevisionError(
      err.streamName || stream,
      expected ?? fromClientExpectedRevision(err.expectedVersion),
      fromCurrentRevision(err.actualVersion),
    );
  }
  if (isUnavailable(err)) {
    const message = err instanceof Error ? err.message : String(err);
    return new EventStoreUnavailableError(`EventStoreDB is unavailable: ${message}`, { cause: err });
  }
  return err;
}

export function isUnavailable(err: unknown): boolean {
  if (err instanceof UnavailableError || err instanceof DeadlineExceededError || err instanceof NotLeaderError) return true;
  if (typeof err !== 'object' || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'number' && UNAVAILABLE_GRPC_CODES.has(code)) return true;
  if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
  const type = (err as { type?: unknown }).type;
  return type === 'unavailable' || type === 'deadline-exceeded';
}

/** The server's "no position" (u64 max, on stream reads before 22.10): we report -1. */
const NO_POSITION = 18446744073709551615n;

export function positionOf(position: Position | undefined): bigint {
  if (!position || position.commit === NO_POSITION || position.commit < 0n) return -1n;
  return position.commit;
}

/** Our exclusive lower bound -> the client's read position (inclusive for reads, exclusive for subscriptions). */
export function toClientPosition(position: bigint): Position {
  return { commit: position, prepare: position };
}

export function isSystemEvent(event: { streamId: string; type: string }): boolean {
  return event.type.startsWith('$') || event.streamId.startsWith('$');
}

/** A resolved event from a read or subscription -> ours; undefined for links and binary events. */
export function fromResolvedEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
  const event = resolved.event;
  if (!event || !event.isJson) return undefined;
  return {
    id: event.id,
    type: event.type,
    data: event.data as JsonValue,
    metadata: isJsonObject(event.metadata) ? event.metadata : {},
    stream: event.streamId,
    revision: event.revision,
    position: positionOf(event.position),
    recordedAt: event.created.getTime(),
  };
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

export const READ_DIRECTION = { forwards: FORWARDS, backwards: BACKWARDS } as const;
export { START, END };
