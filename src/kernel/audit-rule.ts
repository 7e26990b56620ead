import type { RecordedEvent } from '../events/port.ts';
import type { AuditFailure } from './audit-failure.ts';

/**
 * A hash-chain rule of the audit: which streams it covers, and the check of one whole stream
 * (its events in revision order). A family declares the rules of its chained aggregates in its
 * index (defineFamily); the audit runs every rule that applies to a stream.
 */
export interface ChainRule {
  name: string;
  appliesTo(stream: string): boolean;
  check(events: readonly RecordedEvent[]): AuditFailure[];
}

export interface HashLinkedChainOptions {
  name: string;
  /** Streams of the aggregate, e.g. `memory-` for `memory-<agent>`. */
  streamPrefix: string;
  /** Event types that carry a link; others in the stream are ignored. Default: every event. */
  eventTypes?: readonly string[];
  /** Data member holding the previous link's hash. Default `prevStateHash`. */
  previousField?: string;
  /** Data member holding this link's hash. Default `stateHash`. */
  hashField?: string;
  /** What the first link's previous hash must be. Default: absent or null. */
  genesis?: string | null;
  /**
   * Recomputes a link's hash from its content, when the aggregate defines how (for example
   * `canonicalSha256({prevStateHash, value})`); without it only the linkage is checked.
   */
  recompute?(event: RecordedEvent): string;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * The common shape of chained aggregates: each version names the hash of the one before it.
 * Checks that the first link starts at the genesis, every link points at its predecessor, hashes
 * are lowercase SHA-256 hex, and (with `recompute`) that each hash matches the content.
 */
export function hashLinkedChainRule(options: HashLinkedChainOptions): ChainRule {
  const previousField = options.previousField ?? 'prevStateHash';
  const hashField = options.hashField ?? 'stateHash';
  const genesis = options.genesis ?? null;
  const kind = `chain:${options.name}`;
  return {
    name: options.name,
    appliesTo: (stream) => stream.startsWith(options.streamPrefix),
    check(events) {
      const failures: AuditFailure[] = [];
      let previousHash: string | null = genesis;
      for (const event of events) {
        if (options.eventTypes && !options.eventTypes.includes(event.type)) continue;
        const fail = (message: string) =>
          failures.push({ kind, stream: event.stream, position: event.position, revision: event.revision, eventId: event.id, message });
        const data = typeof event.data === 'object' && event.data !== null && !Array.isArray(event.data) ? event.data : {};
        const linked = data[previousField] ?? null;
        const hash = data[hashField];
        if (typeof hash !== 'string' || !SHA256_HEX.test(hash)) {
          fail(`${hashField} is not a lowercase SHA-256 hex digest`);
          return failures; // The rest of the chain cannot be followed.
        }
        if (linked !== previousHash) fail(`${previousField} is ${JSON.stringify(linked)}, expected ${JSON.stringify(previousHash)}`);
        if (options.recompute) {
          let recomputed: string | undefined;
          try {
            recomputed = options.recompute(event);
          } catch (err) {
            fail(`${hashField} cannot be recomputed: ${(err as Error).message}`);
          }
          if (recomputed !== undefined && recomputed !== hash) fail(`${hashField} ${hash} does not match the content (recomputed ${recomputed})`);
        }
        previousHash = hash;
      }
      return failures;
    },
  };
}
