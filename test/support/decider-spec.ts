import { expect } from 'vitest';
import { DomainRefusal, fold, type Decider, type DomainEvent } from '../../src/kernel/decider.ts';
import { canonicalSha256 } from '../../src/signing/hash.ts';

/**
 * Given/when/then for every decider, in the manner of Emmett's DeciderSpecification:
 *
 *   const spec = deciderSpec(memoryDecider);
 *   spec.given([opened]).when(put).then([written]);          // exactly these events
 *   spec.given([opened]).when(put).thenMatches([{ type }]);  // events that match (toMatchObject)
 *   spec.given([]).when(put).thenRefuses({ status: 403 });   // a DomainRefusal like this one
 *   spec.given([opened, written]).when(put).thenNothing();   // no new event (an idempotent retry)
 *   spec.given([opened]).when(put).thenThrows(SomeFault);     // a fault, not an answer to the caller
 *
 * `given` folds the events with the decider's own evolve from its initialState, so a test never
 * builds a state by hand that the events could not produce.
 */
export function deciderSpec<C, E extends DomainEvent, S>(decider: Decider<C, E, S>) {
  return {
    given(events: readonly E[]) {
      const state = fold(decider, [...events]);
      return {
        /** The state the given events fold to, for assertions about evolve itself. */
        state,
        when(command: C) {
          const decide = (): E[] => decider.decide(command, state);
          return {
            then(expected: readonly E[]): E[] {
              const produced = decide();
              expect(produced).toEqual(expected);
              return produced;
            },
            thenMatches(expected: ReadonlyArray<Partial<E> | { type: string; data?: object }>): E[] {
              const produced = decide();
              expect(produced).toHaveLength(expected.length);
              expect(produced).toMatchObject(expected as object[]);
              return produced;
            },
            thenNothing(): void {
              expect(decide()).toEqual([]);
            },
            thenRefuses(expected: Partial<Pick<DomainRefusal, 'status' | 'error' | 'outcome'>> & { message?: string | RegExp } = {}): DomainRefusal {
              let refusal: unknown;
              try {
                decide();
              } catch (err) {
                refusal = err;
              }
              expect(refusal, 'the decider should refuse with a DomainRefusal').toBeInstanceOf(DomainRefusal);
              const { message, ...fields } = expected;
              expect(refusal).toMatchObject(fields);
              if (message !== undefined) expect((refusal as Error).message).toMatch(message);
              return refusal as DomainRefusal;
            },
            /** A fault, not a refusal (an invariant the caller of the decider keeps): decide throws this error, no DomainRefusal. */
            thenThrows(expected: new (...args: never[]) => Error): void {
              expect(decide).toThrow(expected);
              expect(decide).not.toThrow(DomainRefusal);
            },
            /** The events decided, folded onto the given state: what a read after the call sees. */
            thenState(): S {
              return decide().reduce(decider.evolve, state);
            },
          };
        },
      };
    },
  };
}

/** What deciding `command` on `state` gives: its events, or the refusal or fault it throws. */
function decision<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, command: C, state: S): unknown {
  try {
    return decider.decide(command, state);
  } catch (err) {
    return err;
  }
}

/**
 * The decider's snapshot codec (Decider.snapshot) keeps its state: the state of the first `cut`
 * events, written to a snapshot's text and read back, with the other events folded onto it, is
 * the state of all of them folded from the start. The two encode alike, weigh alike (keptSize),
 * and decide each of `commands` alike.
 */
export function expectSnapshotKeepsState<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, events: readonly E[], cut: number, commands: readonly C[] = []): void {
  const codec = decider.snapshot!;
  const decoder = codec.decoder();
  for (const piece of codec.encode(fold(decider, events.slice(0, cut)))) decoder.add(JSON.parse(JSON.stringify(piece)));
  const readBack = decoder.finish();
  const resumed = events.slice(cut).reduce(decider.evolve, readBack);
  const whole = fold(decider, [...events]);
  expect([...codec.encode(resumed)]).toEqual([...codec.encode(whole)]);
  expect(decider.keptSize?.(resumed)).toBe(decider.keptSize?.(whole));
  for (const command of commands) expect(decision(decider, command, resumed)).toEqual(decision(decider, command, whole));
}

/**
 * The codec's version and the SHA-256 of its encoding of the state `events` fold to. A test pins
 * it for a fixed history: a change to the state, to evolve or to the encoding that shows in it
 * fails that test until the codec's version is bumped (so that no snapshot the old code wrote is
 * read as the new code's) and the pin is updated with it.
 */
export function snapshotFingerprint<C, E extends DomainEvent, S>(decider: Decider<C, E, S>, events: readonly E[]): string {
  const codec = decider.snapshot!;
  return `${codec.kind}/v${codec.version} ${canonicalSha256([...codec.encode(fold(decider, [...events]))])}`;
}
