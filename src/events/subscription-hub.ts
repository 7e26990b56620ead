import type { RecordedEvent, SubscribeOptions, Subscription } from './port.ts';

/**
 * An event as a store publishes it: its position and type up front, the event itself decoded
 * only when a subscriber wants it (see SubscribeOptions.eventTypes). A store may memoise decode.
 */
export interface PublishedEvent {
  readonly position: bigint;
  readonly type: string;
  decode(): RecordedEvent;
}

/** An event already in hand, published as is. */
export function published(event: RecordedEvent): PublishedEvent {
  return { position: event.position, type: event.type, decode: () => event };
}

/**
 * Catch-up-then-live delivery for the embedded adapters. Live events that arrive while the
 * catch-up read is still running are held back, then delivered after it, deduplicated by
 * position: each subscriber sees every event exactly once, strictly in position order, one at a
 * time (the next waits for onEvent, or onPassed, to settle).
 */
export function createSubscriptionHub(
  readFrom: (fromPosition: bigint | undefined) => Iterable<RecordedEvent> | AsyncIterable<RecordedEvent>,
) {
  const subscribers = new Set<Subscriber>();

  class Subscriber implements Subscription {
    private readonly heldBack: PublishedEvent[] = [];
    private readonly queue: PublishedEvent[] = [];
    private readonly types: ReadonlySet<string> | undefined;
    private last: bigint | undefined;
    private live = false;
    private draining = false;
    private closed = false;

    constructor(private readonly options: SubscribeOptions) {
      this.last = options.fromPosition;
      this.types = options.eventTypes ? new Set(options.eventTypes) : undefined;
      void this.catchUp();
    }

    private async catchUp(): Promise<void> {
      try {
        for await (const e of readFrom(this.options.fromPosition)) {
          if (this.closed) return;
          this.queue.push(published(e));
          await this.drain();
        }
        this.heldBack.sort((a, b) => (a.position < b.position ? -1 : 1));
        // One by one: what arrived during a long catch-up can be more events than a call takes arguments.
        for (const event of this.heldBack.splice(0)) this.queue.push(event);
        this.live = true;
        await this.drain();
      } catch (err) {
        this.fail(err as Error);
      }
    }

    wants(type: string): boolean {
      return this.types === undefined || this.types.has(type);
    }

    offer(events: readonly PublishedEvent[]): void {
      if (this.closed) return;
      if (!this.live) {
        for (const event of events) this.heldBack.push(event);
        return;
      }
      for (const event of events) this.queue.push(event);
      void this.drain();
    }

    private async drain(): Promise<void> {
      if (this.draining) return;
      this.draining = true;
      try {
        while (this.queue.length > 0 && !this.closed) {
          const e = this.queue.shift()!;
          if (this.last !== undefined && e.position <= this.last) continue;
          this.last = e.position;
          // Awaited only when a handler returns a promise: no extra turn per event otherwise.
          const settled = this.wants(e.type) ? this.options.onEvent(e.decode()) : this.options.onPassed?.(e.position);
          if (settled) await settled;
        }
      } catch (err) {
        this.fail(err as Error);
      } finally {
        this.draining = false;
      }
    }

    private fail(err: Error): void {
      this.closed = true;
      subscribers.delete(this);
      this.options.onError?.(err);
    }

    async close(): Promise<void> {
      this.closed = true;
      subscribers.delete(this);
    }
  }

  return {
    subscribe(options: SubscribeOptions): Subscription {
      const s = new Subscriber(options);
      subscribers.add(s);
      return s;
    },
    /** Whether anyone is subscribed: lets a store skip building events nobody would receive. */
    get hasSubscribers(): boolean {
      return subscribers.size > 0;
    },
    /** Whether any subscriber reads events of this type (a store must decode those now). */
    wants(type: string): boolean {
      for (const s of subscribers) if (s.wants(type)) return true;
      return false;
    },
    publish(events: readonly PublishedEvent[]): void {
      for (const s of subscribers) s.offer(events);
    },
    closeAll(): void {
      for (const s of [...subscribers]) void s.close();
    },
  };
}
