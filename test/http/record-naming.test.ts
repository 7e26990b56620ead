import { describe, expect, it } from 'vitest';
import { pricedOperations } from '../../src/catalog/index.ts';
import type { JsonObject, JsonValue } from '../../src/signing/rfc8785.ts';
import { runAgainst } from '../support/http.ts';
import { useTestService } from '../support/service.ts';

/**
 * The record naming policy (docs/records-and-outcomes.md), checked on the record every built
 * operation signs for its documented example: `kind` on every record, one `ruleset` member
 * {id, version} naming the rules that produced it, no older rule-name members, and amounts as
 * decimal strings. The spec's field-by-field records keep exactly the members the spec names.
 */

/** Records whose members spec section 2 fixes: no `kind` can be added; the ruleset sits where the spec leaves room. */
const SPEC_FIXED: Record<string, { members: string[]; rulesetIn?: (r: JsonObject) => JsonValue[] }> = {
  'identity.control-proof': { members: ['identifier', 'control_method', 'control_evidence', 'claimer', 'verdict', 'claimsAt'] },
  'readiness.attest': { members: ['target', 'policy', 'evidence', 'custodian', 'verdict', 'attestsAt'], rulesetIn: (r) => (r.evidence as JsonObject[]).map((f) => f.ruleset!) },
  'agent-reputation.trusted-route': { members: ['routes_count', 'ranking'], rulesetIn: (r) => (r.ranking as JsonObject[]).map((e) => e.ruleset!) },
};
/** Canonical records of the spec whose ruleset lives in the member the spec leaves open. */
const RULESET_INSIDE: Record<string, string> = { 'compliance.check': 'assessment', 'utility-receipt': 'utility_result' };
/** Records no rule set produced: an attestation or receipt of the caller's own content, a purchase. */
const NO_RULESET = new Set(['veritrack.attest', 'receipts.mint', 'identity.control-proof', 'ebook.download']);
const RETIRED_RULE_MEMBERS = ['rules', 'rule', 'standard', 'scoringVersion', 'rubricVersion'];
/** A retired name that is the caller's own content, not a rule set: containment's signed notify/throttle rules. */
const CALLER_CONTENT: Record<string, string[]> = { 'containment.register': ['rules'] };
const AMOUNT_NAME = /(^|_)(usd|amount)($|_)|^amount|price/i;

function numericAmounts(value: JsonValue, path: string): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => numericAmounts(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([name, v]) => [
    ...(AMOUNT_NAME.test(name) && typeof v === 'number' ? [`${path}.${name} = ${v}`] : []),
    ...numericAmounts(v, `${path}.${name}`),
  ]);
}

/** The example input, made real where it names state that must exist first (a lease to settle). */
async function exampleInput(id: string, example: unknown): Promise<unknown> {
  if (id !== 'governance.settle') return example;
  const reserve = pricedOperations().find((o) => o.id === 'governance.reserve')!;
  const { record } = await runAgainst(service, reserve.id, reserve.example);
  return { ...(example as JsonObject), lease_id: record.lease_id };
}

const isRuleset = (v: JsonValue | undefined): boolean =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && typeof v.id === 'string' && /^\d+$/.test(String(v.version));

const service = useTestService();
// Uploads (invoice OCR) sign the same utility receipt as the other utilities; their own tests cover them.
const operations = pricedOperations().filter((op) => op.command && op.keyFamily && op.inputFrom !== 'multipart');

describe('record naming, on the signed record of every built operation', () => {
  it.each(operations.map((op) => [op.id]))('%s', async (id) => {
    const op = operations.find((o) => o.id === id)!;
    const { record } = await runAgainst(service, op.id, await exampleInput(id, op.example));
    const fixed = SPEC_FIXED[id];
    if (fixed) {
      expect(Object.keys(record).every((m) => fixed.members.includes(m))).toBe(true);
    } else {
      expect(typeof record.kind).toBe('string');
    }
    const retired = Object.keys(record).filter((name) => RETIRED_RULE_MEMBERS.includes(name) && !CALLER_CONTENT[id]?.includes(name));
    expect(retired).toEqual([]);
    if (!NO_RULESET.has(id)) {
      const inside = RULESET_INSIDE[id] ?? RULESET_INSIDE[String(record.kind)];
      const rulesets = fixed?.rulesetIn ? fixed.rulesetIn(record) : [inside ? (record[inside] as JsonObject).ruleset! : record.ruleset!];
      expect(rulesets.length).toBeGreaterThan(0);
      expect(rulesets.every(isRuleset)).toBe(true);
    }
    expect(numericAmounts(record, '$')).toEqual([]);
  });
});
