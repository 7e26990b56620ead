import type { OsvEvent, OsvRange } from './advisory-set.ts';
import type { VersionRules } from './ecosystems.ts';

export type RangeVerdict =
  | { kind: 'affected'; fixed: string | null; lastAffected: string | null }
  | { kind: 'not-affected' }
  | { kind: 'unevaluable'; version: string };

interface ParsedEvent {
  kind: 'introduced' | 'fixed' | 'last_affected';
  /** null: introduced "0", before every version. */
  version: string | null;
  written: string;
}

function parseEvent(event: OsvEvent, rules: VersionRules): ParsedEvent | string {
  const [kind, written] = Object.entries(event)[0] as [ParsedEvent['kind'], string];
  if (kind === 'introduced' && written === '0') return { kind, version: null, written };
  const version = rules.parse(written);
  return version === undefined ? written : { kind, version, written };
}

/**
 * OSV's evaluation of one SEMVER or ECOSYSTEM range (ossf/osv-schema, "Evaluation"): the events
 * sorted by version; a version is affected from an `introduced` up to (not including) the next
 * `fixed`, or up to and including the next `last_affected`. The first fixed version after the
 * dependency's version is the fix it needs.
 */
export function evaluateRange(version: string, range: OsvRange, rules: VersionRules): RangeVerdict {
  const events: ParsedEvent[] = [];
  for (const event of range.events) {
    const parsed = parseEvent(event, rules);
    if (typeof parsed === 'string') return { kind: 'unevaluable', version: parsed };
    events.push(parsed);
  }
  events.sort((a, b) => (a.version === null ? (b.version === null ? 0 : -1) : b.version === null ? 1 : rules.compare(a.version, b.version)));
  let affected = false;
  for (const event of events) {
    const order = event.version === null ? 1 : rules.compare(version, event.version);
    if (event.kind === 'introduced' && order >= 0) affected = true;
    else if (event.kind === 'fixed' && order >= 0) affected = false;
    else if (event.kind === 'last_affected' && order > 0) affected = false;
  }
  if (!affected) return { kind: 'not-affected' };
  // Every event at or below the version is behind it: the first fix above it (or the last affected version at or above it) closes its range.
  const closing = events.find((event) => event.version !== null && ((event.kind === 'fixed' && rules.compare(event.version, version) > 0) || (event.kind === 'last_affected' && rules.compare(event.version, version) >= 0)));
  return {
    kind: 'affected',
    fixed: closing?.kind === 'fixed' ? closing.written : null,
    lastAffected: closing?.kind === 'last_affected' ? closing.written : null,
  };
}
