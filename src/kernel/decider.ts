import { eventId } from '../events/event-ids.ts';
import { WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '../events/port.ts';
import type { JsonObject } from '../signing/rfc8785.ts';

/** A domain event as deciders see it: a type and a JSON payload. */
export interface DomainEvent {
  type: string;
  data: JsonObject;
}

/**
 * A decider per aggregate: `decide` turns a command into new events given the current state
 * (throwing a DomainRefusal when the command cannot apply), `evolve` folds one event into the
 * state. Both are pure.
 */
export interface Decider<C, E extends DomainEvent, S> {
  initialState: S;
  decide(command: C, state: S): E[];
  evolve(state: S, event: E): S;
}

export function fold<E extends DomainEvent, S>(decider: Pick<Decider<unknown, E, S>, 'evolve' | 'initialState'>, events: E[]): S {
  return events.reduce(decider.evolve, decider.initialState);
}

export interface HandleOptions<E extends DomainEvent> {
  /** Origin of the deterministic event ids (the payment stream of the call). */
  origin: string;
  /** Parses a stored event back into the aggregate's event type (zod at the boundary). */
  parse(event: RecordedEvent): E;
  metadata?: JsonObject;
  /** Attempts under optimistic concurrency before giving up. */
  maxAttempts?: number;
}

export interface Handled<E, S> {
  state: S;
  /** The events this call wrote (or had already written, on a resumed call). */
  events: E[];
  /** The stream's last revision after the call. */
  revision: bigint;
}

/**
 * Read -> fold -> decide -> append at the expected revision, retried on a concurrent write.
 * The stream stays linear under contention, and a decider that recognises its own earlier
 * events (by the payment in their data) makes a resumed call a no-op.
 */
export async function handleCommand<C, E extends DomainEvent, S>(
  store: EventStore,
  stream: string,
  decider: Decider<C, E, S>,
  command: C,
  options: HandleOptions<E>,
): Promise<Handled<E, S>> {
  const maxAttempts = options.maxAttempts ?? 50;
  for (let attempt = 1; ; attempt++) {
    const recorded = await store.readStream(stream);
    const state = fold(decider, recorded.map(options.parse));
    const events = decider.decide(command, state);
    const expectedRevision = recorded.length === 0 ? 'no_stream' : recorded.at(-1)!.revision;
    if (events.length === 0) return { state, events, revision: recorded.length === 0 ? -1n : recorded.at(-1)!.revision };
    try {
      const result = await store.appendToStream(
        stream,
        events.map((e, i) => ({ id: eventId(options.origin, `${stream}/${e.type}`, i), type: e.type, data: e.data, metadata: options.metadata ?? {} })),
        { expectedRevision },
      );
      return { state: events.reduce(decider.evolve, state), events, revision: result.nextExpectedRevision };
    } catch (err) {
      if (!(err instanceof WrongExpectedRevisionError) || attempt >= maxAttempts) throw err;
      // Back off a little, jittered, so that contenders do not collide in lockstep.
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, attempt * 2)));
    }
  }
}

/** A command that cannot apply to the aggregate's state; the HTTP layer maps it to a status. */
export class DomainRefusal extends Error {
  constructor(
    readonly status: 403 | 409 | 422,
    readonly error: string,
    message: string,
    readonly outcome?: string,
  ) {
    super(message);
    this.name = 'DomainRefusal';
  }
}
