import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { classify, type Answer } from './engine.ts';
import { QUESTIONNAIRE, QUESTIONNAIRE_REF } from './questionnaire.ts';

const NOW = 1_790_000_000_000;
const idsOf = (group: string) => QUESTIONNAIRE.questions.filter((q) => q.group === group).map((q) => q.id);
const all = (groups: string[], value: Answer) => Object.fromEntries(groups.flatMap(idsOf).map((id) => [id, value]));
const NOTHING_APPLIES = all(['prohibited', 'annex_i', 'annex_iii', 'transparency'], 'no');

type Assessment = { risk_class: string; matched: Array<{ question: string }>; missing_answers: string[]; obligations: Array<{ article: string; role: string; applies_from: Record<string, string> }>; derogations_considered: Array<{ applies: boolean }>; candidates_from_description: Array<{ question: string; status: string }>; evidence_source: string; ruleset: { data: Array<{ sha256: string }> } };
const assess = (answers: Record<string, Answer>, extra: { description?: string; role?: 'provider' | 'deployer' | 'provider-and-deployer' } = {}) =>
  (classify({ asset: 'system under test', use_case: { description: extra.description ?? '', role: extra.role, answers } }, QUESTIONNAIRE, { ...QUESTIONNAIRE_REF }, NOW) as JsonObject & { assessment: Assessment }).assessment;
const articles = (a: Assessment) => a.obligations.map((o) => o.article);

describe('EU AI Act classification from questionnaire answers', () => {
  it('a CV-screening system that profiles applicants is high-risk under Annex III point 4(a), with the provider obligations and both sets of dates', () => {
    const a = assess({ ...NOTHING_APPLIES, annex_iii_4_a: 'yes', art6_3_profiling: 'yes' });
    expect(a.risk_class).toBe('HIGH-RISK');
    expect(a.matched.map((m) => m.question)).toEqual(['annex_iii_4_a']);
    expect(a.derogations_considered).toMatchObject([{ applies: false }]);
    expect(articles(a)).toEqual(expect.arrayContaining(['Article 9', 'Article 10', 'Article 14', 'Article 43', 'Article 49']));
    expect(articles(a)).not.toContain('Article 26');
    expect(a.obligations[0]!.applies_from).toMatchObject({ regulation_2024_1689: '2026-08-02', digital_omnibus_on_ai: '2027-12-02' });
    expect(a.evidence_source).toBe('caller-supplied');
    expect(a.ruleset.data[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a deployer of a credit-scoring system owes the fundamental rights impact assessment of Article 27', () => {
    const a = assess({ ...NOTHING_APPLIES, annex_iii_5_b: 'yes', art6_3_profiling: 'yes' }, { role: 'deployer' });
    expect(a.risk_class).toBe('HIGH-RISK');
    expect(articles(a)).toEqual(['Article 26', 'Article 27']);
  });

  it('social scoring is prohibited by Article 5(1)(c), whatever else is answered', () => {
    const a = assess({ art5_1_c: 'yes' });
    expect(a.risk_class).toBe('PROHIBITED');
    expect(a.matched.map((m) => m.question)).toEqual(['art5_1_c']);
    expect(a.obligations[0]).toMatchObject({ article: 'Article 5', applies_from: { regulation_2024_1689: '2025-02-02' } });
  });

  it('a customer-service chatbot is limited-risk with the Article 50(1) duty to tell people they talk to an AI', () => {
    const a = assess({ ...NOTHING_APPLIES, art50_1: 'yes' });
    expect(a.risk_class).toBe('LIMITED-RISK');
    expect(articles(a)).toEqual(['Article 50(1)']);
  });

  it('a spam filter that meets none of the rules is minimal-risk with no obligation', () => {
    const a = assess(NOTHING_APPLIES);
    expect(a.risk_class).toBe('MINIMAL-RISK');
    expect(a.obligations).toEqual([]);
    expect(a.missing_answers).toEqual([]);
  });

  it('an Annex III system that does a narrow procedural task, poses no significant risk and does not profile is not high-risk, but must document and register that', () => {
    const a = assess({ ...NOTHING_APPLIES, annex_iii_4_a: 'yes', art6_3_profiling: 'no', art6_3_a: 'yes', art6_3_no_significant_risk: 'yes' });
    expect(a.risk_class).toBe('MINIMAL-RISK');
    expect(a.derogations_considered).toMatchObject([{ applies: true }]);
    expect(articles(a)).toEqual(['Article 6(4)', 'Article 49(2)']);
  });

  it('the same system that profiles people cannot use the derogation', () => {
    const a = assess({ ...NOTHING_APPLIES, annex_iii_4_a: 'yes', art6_3_profiling: 'yes', art6_3_a: 'yes', art6_3_no_significant_risk: 'yes' });
    expect(a.risk_class).toBe('HIGH-RISK');
  });

  it('a deciding answer left unknown gives INSUFFICIENT-DATA naming it, never a guess', () => {
    const prohibitedOpen = assess({ ...NOTHING_APPLIES, art5_1_f: 'unknown' });
    expect(prohibitedOpen.risk_class).toBe('INSUFFICIENT-DATA');
    expect(prohibitedOpen.missing_answers).toEqual(['art5_1_f']);
    const derogationOpen = assess({ ...NOTHING_APPLIES, annex_iii_4_a: 'yes' });
    expect(derogationOpen.risk_class).toBe('INSUFFICIENT-DATA');
    expect(derogationOpen.missing_answers).toContain('art6_3_profiling');
    const { annex_iii_8_b: _left, ...withoutOne } = NOTHING_APPLIES;
    expect(assess(withoutOne)).toMatchObject({ risk_class: 'INSUFFICIENT-DATA', missing_answers: ['annex_iii_8_b'] });
  });

  it('free text never decides: a description about recruitment only suggests Annex III questions, marked unconfirmed', () => {
    const a = assess(NOTHING_APPLIES, { description: 'Screens job applicants and ranks CVs for recruitment.' });
    expect(a.risk_class).toBe('MINIMAL-RISK');
    expect(a.candidates_from_description.map((c) => c.question)).toContain('annex_iii_4_a');
    expect(a.candidates_from_description.every((c) => c.status.startsWith('unconfirmed'))).toBe(true);
  });

  it('a general-purpose model with systemic risk adds Articles 53 and 55', () => {
    expect(articles(assess({ ...NOTHING_APPLIES, gpai_model: 'yes', gpai_systemic_risk: 'yes' }))).toEqual(['Article 53', 'Article 55']);
  });

  it('every question cites the Regulation and has a unique id', () => {
    const ids = QUESTIONNAIRE.questions.map((q) => q.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const q of QUESTIONNAIRE.questions) expect(q.basis).toMatch(/Regulation \(EU\) 2024\/1689/);
    expect(idsOf('prohibited')).toHaveLength(8);
  });
});
