import { v5 as uuidv5 } from 'uuid';

/** Namespace of every event id this service derives (a fixed UUID, part of the log format). */
const EVENT_ID_NAMESPACE = '6f1c2b1e-2a57-4f6e-9c39-0b8f5f4f2d11';

/**
 * Deterministic event id: the same logical append (same origin, type and index) always gets the
 * same id, so a retried append is recognised as the same append by every adapter.
 */
export function eventId(origin: string, type: string, index = 0): string {
  return uuidv5(`${origin}\u0000${type}\u0000${index}`, EVENT_ID_NAMESPACE);
}
