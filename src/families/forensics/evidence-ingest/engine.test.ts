import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVIDENCE_ENTRY_RULES, EVIDENCE_ENTRY_RULESET, deriveActionHash, entryIdOf, evidenceEntryContent, sealEvidenceEntry } from './engine.ts';
import { evidenceIngestInputSchema, type EvidenceIngestInput } from './input.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';

const base: EvidenceIngestInput = { action: 'model.deployed', actor: 'did:example:ops', subject: 'example-7b', occurredAt: 1_767_000_000, payload: { env: 'prod' } };

describe('evidence entry engine', () => {
  it('derives action_hash from the canonical entry when the caller omits it', () => {
    const { record } = sealEvidenceEntry(base, 100);
    expect(record.action_hash).toBe(canonicalSha256({ rules: EVIDENCE_ENTRY_RULES, purpose: 'action_hash', entry: evidenceEntryContent(base) }));
    expect(record.action_hash_source).toBe('derived');
    expect(record.ruleset).toEqual(EVIDENCE_ENTRY_RULESET);
    // The caller's account, sealed: never presented as observed.
    expect(record.evidence_source).toBe('caller-supplied');
  });

  it('keeps a supplied action_hash and says whether it matches the derivation', () => {
    const derived = deriveActionHash(evidenceEntryContent(base));
    expect(sealEvidenceEntry({ ...base, action_hash: derived }, 1).record.action_hash_source).toBe('supplied-matches-derivation');
    const other = 'ab'.repeat(32);
    const sealed = sealEvidenceEntry({ ...base, action_hash: other }, 1).record;
    expect(sealed.action_hash).toBe(other);
    expect(sealed.action_hash_source).toBe('supplied');
  });

  it('gives the same entryId for the same content, whatever the clock or key order', () => {
    const a = sealEvidenceEntry(base, 1);
    const reordered = { payload: { env: 'prod' }, occurredAt: 1_767_000_000, subject: 'example-7b', actor: 'did:example:ops', action: 'model.deployed' };
    const b = sealEvidenceEntry(reordered, 999);
    expect(b.entryId).toBe(a.entryId);
    expect(entryIdOf(base)).toBe(a.entryId);
    expect(a.record.sealedAt).toBe(1);
    expect(b.record.sealedAt).toBe(999);
  });

  it('omitting action_hash and supplying the derived one name the same entry', () => {
    expect(entryIdOf({ ...base, action_hash: deriveActionHash(evidenceEntryContent(base)) })).toBe(entryIdOf(base));
  });

  it('gives a different entryId for different content or a different supplied action hash', () => {
    expect(entryIdOf({ ...base, subject: 'example-8b' })).not.toBe(entryIdOf(base));
    expect(entryIdOf({ ...base, action_hash: 'cd'.repeat(32) })).not.toBe(entryIdOf(base));
  });

  it('leaves absent optional members out instead of filling them in', () => {
    const { record } = sealEvidenceEntry({ action: 'x' }, 5);
    expect(record.entry).toEqual({ action: 'x' });
  });

  it('refuses malformed input with the field named', () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'action'],
      [{ action: '' }, 'action'],
      [{ action: 'x', action_hash: 'ABC' }, 'action_hash'],
      [{ action: 'x', occurredAt: 1.5 }, 'occurredAt'],
      [{ action: 'x', extra: 1 }, ''],
      [{ action: 'x', payload: [1] }, 'payload'],
    ];
    for (const [input, path] of cases) {
      const parsed = evidenceIngestInputSchema.safeParse(input);
      expect(parsed.success).toBe(false);
      expect(parsed.error!.issues[0]!.path.join('.')).toBe(path);
    }
  });

  it('is deterministic (property)', () => {
    const input = fc.record(
      {
        action: fc.string({ minLength: 1, maxLength: 40 }),
        actor: fc.string({ minLength: 1, maxLength: 20 }),
        occurredAt: fc.nat(),
        payload: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant(null))),
      },
      { requiredKeys: ['action'] },
    );
    fc.assert(
      fc.property(input, fc.nat(), (i, now) => {
        const a = sealEvidenceEntry(i, now);
        const b = sealEvidenceEntry(structuredClone(i), now);
        expect(canonicalSha256(a.record)).toBe(canonicalSha256(b.record));
        expect(a.entryId).toMatch(/^[0-9a-f]{64}$/);
      }),
    );
  });
});
