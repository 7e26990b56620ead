import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { classify, type Answer } from './engine.ts';
import { QUESTIONNAIRE, QUESTIONNAIRE_REF } from './questionnaire.ts';

const NOW = 1_790_000_000_000;
const idsOf = (group: string) => QUESTIONNAIRE.questions.filter((q) => q.group === group).map((q) => q.id);
const all = (groups: string[], value: Answer) => Object.fromEntries(groups.flatMap(idsOf).map((id) => [id, value]));
const NOTHING_APPLIES = { ...all(['prohibited', 'annex_i', 'annex_iii', 'transparency'], 'no'), art49_3_public_authority: 'no' as const };
const without = (answers: Record<string, Answer>, ...ids: string[]) => Object.fromEntries(Object.entries(answers).filter(([id]) => !ids.includes(id)));

type Assessment = { risk_class: string; role: string; matched: Array<{ question: string; basis: string; source?: string }>; missing_answers: string[]; obligations: Array<{ article: string; role: string; applies_from: Record<string, string>; status?: string }>; limitations: string[]; derogations_considered: Array<{ applies: boolean }>; candidates_from_description: Array<{ question: string; status: string }>; evidence_source: string; ruleset: { version: string; data: Array<{ sha256: string }> } };
const assess = (answers: Record<string, Answer>, extra: { description?: string; role?: 'provider' | 'deployer' | 'provider-and-deployer'; now?: number } = {}) =>
  (classify({ asset: 'system under test', use_case: { description: extra.description ?? '', role: extra.role, answers } }, QUESTIONNAIRE, { ...QUESTIONNAIRE_REF }, extra.now ?? NOW) as JsonObject & { assessment: Assessment }).assessment;
const articles = (a: Assessment) => a.obligations.map((o) => o.article);

describe('EU AI Act classification from questionnaire answers', () => {
  it('a CV-screening system that profiles applicants is high-risk under Annex III point 4(a), with the provider obligations and both sets of dates', () => {
    const a = assess({ ...NOTHING_APPLIES, annex_iii_4_a: 'yes', art6_3_profiling: 'yes' });
    expect(a.risk_class).toBe('HIGH-RISK');
    expect(a.matched.map((m) => m.question)).toEqual(['annex_iii_4_a']);
    expect(a.derogations_considered).toMatchObject([{ applies: false }]);
    expect(articles(a)).toEqual(expect.arrayContaining(['Article 9', 'Article 10', 'Article 14', 'Article 43', 'Article 49(1)']));
    expect(a.obligations).toHaveLength(11);
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

  it('an Annex I product deployed by a public body is high-risk without the Article 27 assessment, which covers Annex III systems only', () => {
    const annexI = { ...NOTHING_APPLIES, art6_1_annex_i_product: 'yes' as const, art6_1_third_party_assessment: 'yes' as const };
    const publicBody = assess({ ...annexI, art27_public_service: 'yes' }, { role: 'deployer' });
    expect(publicBody.risk_class).toBe('HIGH-RISK');
    expect(articles(publicBody)).toEqual(['Article 26']);
    expect(publicBody.obligations[0]!.applies_from).toMatchObject({ regulation_2024_1689: '2027-08-02', digital_omnibus_on_ai: '2028-08-02' });
    const unanswered = assess(annexI, { role: 'deployer' });
    expect(unanswered).toMatchObject({ risk_class: 'HIGH-RISK', missing_answers: [] });
    expect(articles(unanswered)).toEqual(['Article 26']);
  });

  it('an Annex I provider is not told to register under Article 49, which covers Annex III systems', () => {
    const a = assess({ ...NOTHING_APPLIES, art6_1_annex_i_product: 'yes', art6_1_third_party_assessment: 'yes' });
    expect(a.risk_class).toBe('HIGH-RISK');
    expect(articles(a).filter((article) => article.startsWith('Article 49'))).toEqual([]);
    expect(articles(a)).toEqual(expect.arrayContaining(['Article 9', 'Article 43']));
  });

  it('an Annex I product that is also an Annex III use case takes the Annex III dates, registration and Article 27', () => {
    const both = { ...NOTHING_APPLIES, art6_1_annex_i_product: 'yes' as const, art6_1_third_party_assessment: 'yes' as const, annex_iii_5_d: 'yes' as const, art6_3_profiling: 'yes' as const, art27_public_service: 'yes' as const };
    const a = assess(both, { role: 'provider-and-deployer' });
    expect(a.risk_class).toBe('HIGH-RISK');
    expect(articles(a)).toEqual(expect.arrayContaining(['Article 49(1)', 'Article 26', 'Article 27']));
    expect(a.obligations.every((o) => o.applies_from['regulation_2024_1689'] === '2026-08-02')).toBe(true);
    const { annex_iii_5_d: _open, ...annexIIIOpen } = both;
    expect(assess(annexIIIOpen, { role: 'provider-and-deployer' })).toMatchObject({ risk_class: 'INSUFFICIENT-DATA', missing_answers: ['annex_iii_5_d'] });
  });

  it('an Annex I product whose Annex III use is lifted by Article 6(3) stays high-risk under Article 6(1) without the derogation paperwork', () => {
    const a = assess({ ...NOTHING_APPLIES, art6_1_annex_i_product: 'yes', art6_1_third_party_assessment: 'yes', annex_iii_4_a: 'yes', art6_3_profiling: 'no', art6_3_a: 'yes', art6_3_no_significant_risk: 'yes' });
    expect(a.risk_class).toBe('HIGH-RISK');
    expect(articles(a)).not.toContain('Article 6(4)');
    expect(articles(a)).not.toContain('Article 49(2)');
    expect(a.obligations[0]!.applies_from).toMatchObject({ regulation_2024_1689: '2027-08-02' });
  });

  it('a critical-infrastructure system (Annex III point 2) gets no Article 27 assessment even for a public deployer, and registers at national level', () => {
    const gridControl = { ...NOTHING_APPLIES, annex_iii_2: 'yes' as const, art6_3_profiling: 'yes' as const, art27_public_service: 'yes' as const };
    const deployer = assess(gridControl, { role: 'deployer' });
    expect(deployer.risk_class).toBe('HIGH-RISK');
    expect(articles(deployer)).toEqual(['Article 26']);
    const provider = assess(gridControl);
    expect(articles(provider)).toContain('Article 49(5)');
    expect(articles(provider)).not.toContain('Article 49(1)');
  });

  it('Article 27 binds public bodies and providers of public services for Annex III systems, and any deployer under points 5(b) and 5(c)', () => {
    const recruitment = { ...NOTHING_APPLIES, annex_iii_4_a: 'yes' as const, art6_3_profiling: 'yes' as const };
    expect(articles(assess({ ...recruitment, art27_public_service: 'yes' }, { role: 'deployer' }))).toEqual(['Article 26', 'Article 27']);
    expect(articles(assess({ ...recruitment, art27_public_service: 'no' }, { role: 'deployer' }))).toEqual(['Article 26']);
    expect(assess(recruitment, { role: 'deployer' })).toMatchObject({ risk_class: 'INSUFFICIENT-DATA', missing_answers: ['art27_public_service'] });
    const lifeInsurance = assess({ ...NOTHING_APPLIES, annex_iii_5_c: 'yes', art6_3_profiling: 'yes', art27_public_service: 'no' }, { role: 'deployer' });
    expect(articles(lifeInsurance)).toEqual(['Article 26', 'Article 27']);
    expect(articles(assess({ ...recruitment, art27_public_service: 'yes' }))).not.toContain('Article 27');
  });

  it('a public authority deploying an Annex III system registers its use in the EU database (Article 49(3)), a question apart from Article 27', () => {
    const recruitment = { ...NOTHING_APPLIES, annex_iii_4_a: 'yes' as const, art6_3_profiling: 'yes' as const, art27_public_service: 'no' as const };
    const authority = assess({ ...recruitment, art49_3_public_authority: 'yes' }, { role: 'deployer' });
    expect(authority).toMatchObject({ risk_class: 'HIGH-RISK', missing_answers: [] });
    expect(articles(authority)).toEqual(['Article 26', 'Article 49(3)']);
    expect(authority.obligations[1]).toMatchObject({ role: 'deployer', applies_from: { regulation_2024_1689: '2026-08-02', digital_omnibus_on_ai: '2027-12-02' } });
    expect(articles(assess(recruitment, { role: 'deployer' }))).toEqual(['Article 26']);
    // A private entity providing public services owes Article 27 but need not be a public authority.
    const publicService = assess({ ...without(recruitment, 'art49_3_public_authority'), art27_public_service: 'yes' }, { role: 'deployer' });
    expect(publicService).toMatchObject({ risk_class: 'INSUFFICIENT-DATA', missing_answers: ['art49_3_public_authority'] });
    expect(articles(publicService)).toEqual(['Article 26', 'Article 27']);
    const both = assess({ ...recruitment, art49_3_public_authority: 'yes' }, { role: 'provider-and-deployer' });
    expect(articles(both)).toEqual(expect.arrayContaining(['Article 49(1)', 'Article 26', 'Article 49(3)']));
  });

  it('asks whether the deployer is a public authority only where Article 49(3) could apply: not of a provider, an Annex I-only system or a point 2 system', () => {
    const unanswered = without(NOTHING_APPLIES, 'art49_3_public_authority');
    expect(assess({ ...unanswered, annex_iii_4_a: 'yes', art6_3_profiling: 'yes' })).toMatchObject({ risk_class: 'HIGH-RISK', missing_answers: [] });
    const annexI = assess({ ...unanswered, art6_1_annex_i_product: 'yes', art6_1_third_party_assessment: 'yes' }, { role: 'deployer' });
    expect(annexI).toMatchObject({ risk_class: 'HIGH-RISK', missing_answers: [] });
    expect(articles(annexI)).toEqual(['Article 26']);
    const gridControl = { ...unanswered, annex_iii_2: 'yes' as const, art6_3_profiling: 'yes' as const, art27_public_service: 'no' as const };
    expect(assess(gridControl, { role: 'deployer' })).toMatchObject({ risk_class: 'HIGH-RISK', missing_answers: [] });
    const authority = assess({ ...gridControl, art49_3_public_authority: 'yes' }, { role: 'deployer' });
    expect(articles(authority)).toEqual(['Article 26']);
    // Another Annex III point left open would bring the system into Article 49(3) for a public authority.
    const otherPointOpen = assess({ ...without(gridControl, 'annex_iii_4_a'), art49_3_public_authority: 'yes' }, { role: 'deployer' });
    expect(otherPointOpen).toMatchObject({ risk_class: 'INSUFFICIENT-DATA', missing_answers: ['annex_iii_4_a'] });
    expect(assess({ ...without(gridControl, 'annex_iii_4_a'), art49_3_public_authority: 'no' }, { role: 'deployer' })).toMatchObject({ risk_class: 'HIGH-RISK', missing_answers: [] });
  });

  it('a high-risk system with an Article 50 answer left open is INSUFFICIENT-DATA naming it: the duty would be listed beside the high-risk obligations', () => {
    const cvScreening = { ...NOTHING_APPLIES, annex_iii_4_a: 'yes' as const, art6_3_profiling: 'yes' as const };
    expect(articles(assess({ ...cvScreening, art50_1: 'yes' }))).toContain('Article 50(1)');
    const open = assess({ ...cvScreening, art50_1: 'unknown' });
    expect(open).toMatchObject({ risk_class: 'INSUFFICIENT-DATA', missing_answers: ['art50_1'] });
    expect(articles(open)).toEqual(expect.arrayContaining(['Article 9', 'Article 49(1)']));
    expect(assess(without(cvScreening, 'art50_3', 'art50_4'))).toMatchObject({ risk_class: 'INSUFFICIENT-DATA', missing_answers: ['art50_3', 'art50_4'] });
  });

  it('a chatbot with one Article 50 duty and another answer left open is INSUFFICIENT-DATA naming it, with the duty already found', () => {
    const a = assess({ ...NOTHING_APPLIES, art50_1: 'yes', art50_2: 'unknown' });
    expect(a).toMatchObject({ risk_class: 'INSUFFICIENT-DATA', missing_answers: ['art50_2'] });
    expect(articles(a)).toEqual(['Article 50(1)']);
  });

  it('the record carries the rule set version that changed what it says', () => {
    expect(assess(NOTHING_APPLIES).ruleset.version).toBe('4');
  });

  it('social scoring is prohibited by Article 5(1)(c), whatever else is answered', () => {
    const a = assess({ art5_1_c: 'yes' });
    expect(a.risk_class).toBe('PROHIBITED');
    expect(a.matched.map((m) => m.question)).toEqual(['art5_1_c']);
    expect(a.obligations[0]).toMatchObject({ article: 'Article 5', applies_from: { regulation_2024_1689: '2025-02-02' } });
  });

  describe('the Digital Omnibus prohibition of non-consensual sexual and intimate content and child sexual abuse material (from 2026-12-02)', () => {
    const NUDIFY = 'art5_1_omnibus_intimate_content_csam';
    const OMNIBUS_ARTICLE = /^Article 5\(1\), the point added by the Digital Omnibus on AI/;
    const at = (iso: string) => Date.parse(iso) / 1000;
    const nudifier = { ...NOTHING_APPLIES, art50_2: 'yes' as const, [NUDIFY]: 'yes' as const };

    it('a nudification app checked before 2026-12-02 is PROHIBITED under the new point, which the record says is not yet in force', () => {
      for (const now of [at('2026-11-28T12:00:00Z'), at('2026-12-01T23:59:59Z')]) {
        const a = assess(nudifier, { now });
        expect(a).toMatchObject({ risk_class: 'PROHIBITED', missing_answers: [] });
        expect(a.matched).toEqual([expect.objectContaining({ question: NUDIFY, basis: expect.stringMatching(/Article 5\(1\).*Digital Omnibus on AI/), source: expect.stringMatching(/press releases.*Official Journal text was not confirmed/) })]);
        expect(a.obligations).toHaveLength(1);
        expect(a.obligations[0]!.article).toMatch(OMNIBUS_ARTICLE);
        expect(a.obligations[0]).toMatchObject({ role: 'all', applies_from: { digital_omnibus_on_ai: '2026-12-02' }, status: 'prohibited from 2026-12-02, not yet in force at the time of the check' });
        expect(a.limitations.join(' ')).not.toMatch(/not yet a question/);
      }
    });

    it('checked from 2026-12-02 on, the same app is PROHIBITED with no such remark', () => {
      for (const now of [at('2026-12-02T00:00:00Z'), at('2027-03-01T09:00:00Z')]) {
        const a = assess(nudifier, { now });
        expect(a.risk_class).toBe('PROHIBITED');
        expect(a.obligations).toEqual([{ article: expect.stringMatching(OMNIBUS_ARTICLE), title: expect.any(String), role: 'all', applies_from: expect.objectContaining({ digital_omnibus_on_ai: '2026-12-02' }) }]);
      }
    });

    it('beside an Article 5 practice of the Regulation, each prohibition keeps its own date', () => {
      const a = assess({ ...nudifier, art5_1_a: 'yes' }, { now: at('2026-11-28T12:00:00Z') });
      expect(a.matched.map((m) => m.question)).toEqual(['art5_1_a', NUDIFY]);
      expect(a.obligations).toMatchObject([{ article: 'Article 5', applies_from: { regulation_2024_1689: '2025-02-02' } }, { article: expect.stringMatching(OMNIBUS_ARTICLE), status: expect.any(String) }]);
      expect(a.obligations[0]).not.toHaveProperty('status');
    });

    it('left open it is named as missing, as every other Article 5 point is', () => {
      expect(assess(without(NOTHING_APPLIES, NUDIFY))).toMatchObject({ risk_class: 'INSUFFICIENT-DATA', missing_answers: [NUDIFY], obligations: [] });
      expect(assess({ ...NOTHING_APPLIES, [NUDIFY]: 'unknown', art5_1_f: 'unknown' })).toMatchObject({ risk_class: 'INSUFFICIENT-DATA', missing_answers: ['art5_1_f', NUDIFY] });
      // An Article 5 yes decides the class whatever is open, the new point included.
      expect(assess({ ...without(NOTHING_APPLIES, NUDIFY), art5_1_c: 'yes' })).toMatchObject({ risk_class: 'PROHIBITED', missing_answers: [] });
    });

    it('answered no, the class is what the other answers give, as before the question existed', () => {
      const cvScreening = assess({ ...NOTHING_APPLIES, [NUDIFY]: 'no', annex_iii_4_a: 'yes', art6_3_profiling: 'yes' }, { now: at('2026-11-28T12:00:00Z') });
      expect(cvScreening).toMatchObject({ risk_class: 'HIGH-RISK', missing_answers: [] });
      expect(cvScreening.obligations).toHaveLength(11);
      expect(cvScreening.obligations.some((o) => 'status' in o)).toBe(false);
      expect(assess({ ...NOTHING_APPLIES, [NUDIFY]: 'no', art50_2: 'yes' })).toMatchObject({ risk_class: 'LIMITED-RISK', missing_answers: [] });
      expect(assess({ ...without(NOTHING_APPLIES, NUDIFY), art50_2: 'yes' }).risk_class).toBe('INSUFFICIENT-DATA');
    });

    it('a description of an undressing app only suggests the question, unconfirmed', () => {
      const a = assess(NOTHING_APPLIES, { description: 'Upload a photo and our nudify filter will undress anyone.' });
      expect(a.risk_class).toBe('MINIMAL-RISK');
      expect(a.candidates_from_description).toContainEqual(expect.objectContaining({ question: NUDIFY, status: expect.stringMatching(/^unconfirmed/) }));
    });
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

  it('with no Article 6(3) condition met the system is high-risk whatever the profiling answer (third subparagraph only closes the derogation)', () => {
    const noCondition = { ...NOTHING_APPLIES, annex_iii_4_a: 'yes' as const, art6_3_a: 'no' as const, art6_3_b: 'no' as const, art6_3_c: 'no' as const, art6_3_d: 'no' as const, art6_3_no_significant_risk: 'no' as const };
    const unknownProfiling = assess({ ...noCondition, art6_3_profiling: 'unknown' });
    expect(unknownProfiling).toMatchObject({ risk_class: 'HIGH-RISK', missing_answers: [], derogations_considered: [{ applies: false }] });
    const { art6_3_no_significant_risk: _open, ...riskUnanswered } = noCondition;
    expect(assess(riskUnanswered)).toMatchObject({ risk_class: 'HIGH-RISK', missing_answers: [] });
  });

  it('asks for profiling only while a condition could still let the derogation apply', () => {
    const conditionMet = assess({ ...NOTHING_APPLIES, annex_iii_4_a: 'yes', art6_3_a: 'yes', art6_3_no_significant_risk: 'yes', art6_3_profiling: 'unknown' });
    expect(conditionMet).toMatchObject({ risk_class: 'INSUFFICIENT-DATA', missing_answers: ['art6_3_profiling'] });
    const significantRisk = assess({ ...NOTHING_APPLIES, annex_iii_4_a: 'yes', art6_3_a: 'yes', art6_3_no_significant_risk: 'no' });
    expect(significantRisk).toMatchObject({ risk_class: 'HIGH-RISK', missing_answers: [] });
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
    expect(assess(without(NOTHING_APPLIES, 'annex_iii_8_b'))).toMatchObject({ risk_class: 'INSUFFICIENT-DATA', missing_answers: ['annex_iii_8_b'] });
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
    expect(idsOf('prohibited')).toHaveLength(9);
  });
});

/**
 * The answers each set of rules reads, and the answers given to every other question (those not
 * given are no). Articles 49(3) and 50 are checked beside the routes to high risk in a set of their
 * own, so that every combination of each set stays small enough to enumerate.
 */
const RULE_SETS: Record<string, { inputs: string[]; base: Record<string, Answer> }> = {
  'Article 6 and 27': {
    inputs: ['art6_1_annex_i_product', 'art6_1_third_party_assessment', 'annex_iii_2', 'annex_iii_4_a', 'annex_iii_5_b', 'art6_3_profiling', 'art6_3_a', 'art6_3_b', 'art6_3_c', 'art6_3_d', 'art6_3_no_significant_risk', 'art27_public_service'],
    base: NOTHING_APPLIES,
  },
  'Article 49(3) and 50': {
    inputs: ['art6_1_annex_i_product', 'annex_iii_2', 'annex_iii_4_a', 'art6_3_profiling', 'art27_public_service', 'art49_3_public_authority', 'art50_1', 'art50_2', 'art50_3', 'art50_4'],
    // Only the profiling answer is left to decide the derogation, and the Annex I product needs a third-party assessment.
    base: { ...NOTHING_APPLIES, art6_1_third_party_assessment: 'yes', art6_3_a: 'yes', art6_3_b: 'no', art6_3_c: 'no', art6_3_d: 'no', art6_3_no_significant_risk: 'yes' },
  },
};
type Role = 'provider' | 'deployer' | 'provider-and-deployer';
const verdict = (a: Assessment) => JSON.stringify({ risk_class: a.risk_class, obligations: a.obligations });
const caseArb = (inputs: string[]) =>
  fc.record({
    role: fc.constantFrom<Role>('provider', 'deployer', 'provider-and-deployer'),
    given: fc.tuple(...inputs.map(() => fc.constantFrom<Answer | undefined>('yes', 'no', 'unknown', undefined))),
  });
const answersOf = ({ inputs, base }: { inputs: string[]; base: Record<string, Answer> }, given: Array<Answer | undefined>) => {
  const answers: Record<string, Answer> = { ...base };
  inputs.forEach((id, i) => {
    if (given[i] === undefined) delete answers[id];
    else answers[id] = given[i];
  });
  return answers;
};
/** The verdict for every way of answering the open rule inputs yes or no, by bit mask over `open`. */
const completions = (answers: Record<string, Answer>, open: string[], role: Role) =>
  Array.from({ length: 2 ** open.length }, (_, mask) => verdict(assess({ ...answers, ...Object.fromEntries(open.map((id, bit) => [id, mask & (1 << bit) ? 'yes' : 'no'])) }, { role })));

describe.each(Object.entries(RULE_SETS))('%s rules, over every combination of their answers', (_rules, rules) => {
  const { inputs } = rules;
  it('a decided record stays the same however its open answers are later answered: nothing was guessed', () => {
    fc.assert(
      fc.property(caseArb(inputs), ({ role, given }) => {
        const answers = answersOf(rules, given);
        const a = assess(answers, { role });
        if (a.risk_class === 'INSUFFICIENT-DATA') return;
        const open = inputs.filter((id) => answers[id] !== 'yes' && answers[id] !== 'no');
        expect(new Set(completions(answers, open, role))).toEqual(new Set([verdict(a)]));
      }),
      { numRuns: 250 },
    );
  });

  it('every answer INSUFFICIENT-DATA names could change the class or the obligations', () => {
    fc.assert(
      fc.property(caseArb(inputs), ({ role, given }) => {
        const answers = answersOf(rules, given);
        const a = assess(answers, { role });
        if (a.risk_class !== 'INSUFFICIENT-DATA') return;
        const open = inputs.filter((id) => answers[id] !== 'yes' && answers[id] !== 'no');
        const verdicts = completions(answers, open, role);
        for (const id of a.missing_answers) {
          const bit = 1 << open.indexOf(id);
          expect(open).toContain(id);
          expect(verdicts.some((v, mask) => mask & bit && v !== verdicts[mask & ~bit])).toBe(true);
        }
      }),
      { numRuns: 250 },
    );
  });
});
