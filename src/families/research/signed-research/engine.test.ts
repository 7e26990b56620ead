import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { researchTopic } from './engine.ts';
import { LIBRARY, LIBRARY_REF, readOperatorDocuments } from './library.ts';

type Research = { outcome: string; matched_topics: string[]; points: Array<{ source_id: string; quote: string; citation: string }>; references: Array<{ id: string; citation: string }>; topics_covered: string[]; corpus: { sha256: string }; reason?: string };
const research = (topic: string, now = 1_790_000_000) => researchTopic(topic, LIBRARY, { ...LIBRARY_REF }, now) as unknown as Research & Record<string, unknown>;

describe('the research library', () => {
  it('has unique ids, well-formed DOIs, a named source for every entry, and entries for every topic it lists', () => {
    const ids = LIBRARY.entries.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(LIBRARY.entries.length).toBeGreaterThanOrEqual(25);
    for (const e of LIBRARY.entries) {
      if (e.doi !== null) expect(e.doi).toMatch(/^10\.\d{4,9}\/\S+$/);
      expect(e.checked_against).toMatch(/^https?:\/\//);
    }
    expect(LIBRARY.topics).toEqual([...new Set(LIBRARY.entries.flatMap((e) => e.topics))].sort());
  });

  it('names its exact bytes in every record', () => {
    const bytes = readFileSync(new URL('./data/quant-research-library.json', import.meta.url));
    expect(research('momentum').corpus.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  });
});

describe('signed research', () => {
  it('answers momentum from the momentum entries, quoting their summaries with full citations', () => {
    const r = research('Momentum');
    expect(r.outcome).toBe('RESEARCH');
    expect(r.matched_topics).toEqual(['momentum']);
    expect(r.references.map((x) => x.id)).toContain('jegadeesh_titman1993');
    for (const p of r.points) {
      const entry = LIBRARY.entries.find((e) => e.id === p.source_id)!;
      expect(entry.summary).toContain(p.quote);
      expect(p.citation).toContain(String(entry.year));
    }
  });

  it('prefers the tag that shares the most words: option pricing, not asset pricing', () => {
    expect(research('options pricing').matched_topics).toEqual(['option pricing']);
  });

  it('answers a topic the library does not cover with INSUFFICIENT-DATA listing the topics it covers', () => {
    const r = research('astrology');
    expect(r).toMatchObject({ outcome: 'INSUFFICIENT-DATA', points: [], references: [] });
    expect(r.topics_covered).toContain('backtest overfitting');
  });

  it('gives the same record for the same topic except the time stamp', () => {
    const { generatedAt: _a, ...first } = research('backtest overfitting', 1);
    const { generatedAt: _b, ...second } = research('backtest overfitting', 2);
    expect(second).toEqual(first);
  });

  it('searches the operator\'s documents beside the library, cites them by file and digest, and names them in the corpus', () => {
    const dir = mkdtempSync(join(tmpdir(), 'research-docs-'));
    try {
      writeFileSync(join(dir, 'desk-note.md'), '# Momentum desk note\n\nOur momentum sleeve lost money in the 2009 rebound, as momentum crashes often follow market rebounds.\n');
      writeFileSync(join(dir, 'ignored.pdf'), 'not read');
      const docs = readOperatorDocuments(dir);
      expect(docs.map((d) => d.file)).toEqual(['desk-note.md']);
      const r = researchTopic('momentum', LIBRARY, { ...LIBRARY_REF }, 1, docs) as unknown as Research & { corpus: { operator_documents: Array<{ file: string; sha256: string }> } };
      expect(r.corpus.operator_documents).toEqual([{ file: 'desk-note.md', sha256: docs[0]!.sha256 }]);
      expect(r.references.map((x) => x.id)).toContain('operator:desk-note.md');
      expect(research('astrology').outcome).toBe('INSUFFICIENT-DATA');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
