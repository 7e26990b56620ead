import { hash } from 'node:crypto';
import { SAGA_STEP_STATES } from './saga.ts';

/**
 * What the audit keeps of every stream as the log streams past: its next revision and the saga
 * steps it has seen, the only state that grows with the log. Kept in one map under the SHA-256
 * of the stream's name (its 32 bytes as a 32-character one-byte string) rather than under the name: a
 * payment stream's name is 117 characters, and the audit's two maps keyed by names held 171
 * bytes a stream (measured over 60,000 payment streams). Two names share a state only if their
 * SHA-256 collide.
 */
export class StreamProgress {
  /** Digest key -> next revision x SAGA_STEP_STATES + saga steps seen. */
  private readonly states = new Map<string, number>();

  get streams(): number {
    return this.states.size;
  }

  keyOf(stream: string): string {
    // Straight to a string: through a Buffer it took four times as long (1.2 against 0.3 us).
    return hash('sha256', stream, 'binary');
  }

  /** The revision the stream's next event must have: 0 for a stream not seen. */
  nextRevision(key: string): number {
    return Math.floor((this.states.get(key) ?? 0) / SAGA_STEP_STATES);
  }

  sagaSteps(key: string): number {
    return (this.states.get(key) ?? 0) % SAGA_STEP_STATES;
  }

  set(key: string, nextRevision: number, sagaSteps: number): void {
    this.states.set(key, nextRevision * SAGA_STEP_STATES + sagaSteps);
  }

  /** The saga steps of every stream (0 for a stream that is not a payment's). */
  *allSagaSteps(): IterableIterator<number> {
    for (const state of this.states.values()) yield state % SAGA_STEP_STATES;
  }
}
