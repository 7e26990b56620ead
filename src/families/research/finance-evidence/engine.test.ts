import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import type { FinanceInput, Statement } from './concepts.ts';
import { analyseStatement } from './engine.ts';
import { divide, formatDecimal, parseDecimal } from '../../../kernel/exact-decimal.ts';
import { FINANCE_EXAMPLE } from './operation.ts';

const NOW = 1_767_225_600;
const base = FINANCE_EXAMPLE.statement as Statement;
const findingOf = (record: JsonObject, id: string) => (record['findings'] as JsonObject[]).find((f) => f['id'] === id)!;
const run = (input: FinanceInput) => analyseStatement(input, NOW);

describe('financial findings, exact', () => {
  it('computes the margins, leverage, liquidity and coverage of a complete statement exactly', () => {
    const record = run({ statement: base });
    expect(record).toMatchObject({ kind: 'financial-evidence', outcome: 'FINDINGS', evidence_source: 'caller-supplied', flags: [] });
    const results = Object.fromEntries((record['findings'] as JsonObject[]).map((f) => [f['id'], f['result']]));
    expect(results).toMatchObject({
      gross_margin: '0.416667', // 500000 / 1200000 = 0.41666..., half-even at 6 places
      operating_margin: '0.15',
      net_margin: '0.1',
      debt_to_equity: '0.714286',
      liabilities_to_assets: '0.65',
      current_ratio: '1.5',
      quick_ratio: '1',
      cash_ratio: '0.375',
      interest_coverage: '9',
      balance_sheet_identity: true,
      negative_equity: false,
    });
  });

  it('a statement with negative equity is flagged, and its debt-to-equity is negative, not hidden', () => {
    const record = run({ statement: { ...base, balance_sheet: { ...base.balance_sheet, Liabilities: '2300000', StockholdersEquity: '-300000' } } });
    expect(findingOf(record, 'negative_equity')).toMatchObject({ result: true, flag: 'NEGATIVE-EQUITY', inputs: { StockholdersEquity: '-300000' } });
    expect(findingOf(record, 'debt_to_equity')).toMatchObject({ status: 'COMPUTED', result: '-1.666667' });
    expect(record['flags']).toEqual(['NEGATIVE-EQUITY']);
  });

  it('a balance sheet that does not balance is flagged with the difference and the tolerance its precision allows', () => {
    const record = run({ statement: { ...base, balance_sheet: { ...base.balance_sheet, Assets: '2000010' } } });
    expect(findingOf(record, 'balance_sheet_identity')).toMatchObject({ result: false, difference: '10', tolerance: '1.5', flag: 'BALANCE-SHEET-DOES-NOT-BALANCE' });
    // Figures given to the cent: a one-cent rounding difference is within 0.015.
    const cents = run({ statement: { ...base, balance_sheet: { Assets: '100.01', Liabilities: '60.00', StockholdersEquity: '40.00' } } });
    expect(findingOf(cents, 'balance_sheet_identity')).toMatchObject({ result: true, difference: '0.01', tolerance: '0.015' });
  });

  it('revenue up while operating cash flow is negative is flagged, with the growth rate', () => {
    const prior: Statement = { ...base, period_end: '2024-12-31', income_statement: { ...base.income_statement, Revenues: '1000000' } };
    const record = run({ statement: { ...base, cash_flow: { NetCashProvidedByOperatingActivities: '-50000' } }, prior });
    expect(findingOf(record, 'revenue_growth')).toMatchObject({ result: '0.2', inputs: { Revenues: '1200000', 'prior.Revenues': '1000000' } });
    expect(findingOf(record, 'revenue_versus_operating_cash_flow')).toMatchObject({ result: true, flag: 'REVENUE-WITHOUT-OPERATING-CASH' });
    expect(findingOf(record, 'growth_without_cash')).toMatchObject({ flag: 'REVENUE-UP-OPERATING-CASH-NEGATIVE' });
    expect(findingOf(record, 'operating_cash_flow_versus_net_income')).toMatchObject({ result: '-0.416667', flag: 'EARNINGS-NOT-BACKED-BY-OPERATING-CASH' });
  });

  it('missing liabilities: the findings that need them are NOT-PROVIDED and name them; the others are computed', () => {
    const { Liabilities: _l, LiabilitiesCurrent: _lc, ...rest } = base.balance_sheet;
    const record = run({ statement: { ...base, balance_sheet: rest } });
    for (const [id, missing] of [
      ['balance_sheet_identity', ['Liabilities']],
      ['liabilities_to_assets', ['Liabilities']],
      ['current_ratio', ['LiabilitiesCurrent']],
      ['quick_ratio', ['LiabilitiesCurrent']],
      ['cash_ratio', ['LiabilitiesCurrent']],
    ] as const)
      expect(findingOf(record, id), id).toEqual({ id, formula: expect.any(String), status: 'NOT-PROVIDED', missing });
    expect(findingOf(record, 'gross_margin')).toMatchObject({ status: 'COMPUTED' });
    expect(record['summary']).toEqual({ computed: 8, not_provided: 5, division_by_zero: 0 });
  });

  it('a zero denominator is reported as DIVISION-BY-ZERO, and nothing computable is INSUFFICIENT-DATA', () => {
    const zero = run({ statement: { ...base, income_statement: { ...base.income_statement, InterestExpense: '0' } } });
    expect(findingOf(zero, 'interest_coverage')).toMatchObject({ status: 'DIVISION-BY-ZERO', inputs: { InterestExpense: '0' } });
    const empty = run({ statement: { currency: 'EUR', period_end: '2025-12-31', income_statement: {}, balance_sheet: {}, cash_flow: {} } });
    expect(empty).toMatchObject({ outcome: 'INSUFFICIENT-DATA', summary: { computed: 0 } });
  });

  it('the Piotroski signals count only what the two statements allow', () => {
    const prior: Statement = { ...base, period_end: '2024-12-31', income_statement: { ...base.income_statement, NetIncomeLoss: '90000' } };
    const score = findingOf(run({ statement: base, prior }), 'piotroski_f_score');
    expect(score).toMatchObject({ status: 'COMPUTED', out_of: 8 });
    expect((score['components'] as JsonObject[]).find((c) => c['id'] === 'no_new_shares')).toMatchObject({ status: 'NOT-PROVIDED' });
    expect((score['components'] as JsonObject[]).find((c) => c['id'] === 'roa_improved')).toMatchObject({ point: 1 });
  });

  it('no Piotroski signal computable: NOT-PROVIDED with what is missing, and no score (not 0 out of 0)', () => {
    const bare: Statement = { period_end: '2025-12-31', currency: 'USD', income_statement: {}, balance_sheet: {}, cash_flow: {} } as unknown as Statement;
    const score = findingOf(run({ statement: bare, prior: { ...bare, period_end: '2024-12-31' } }), 'piotroski_f_score');
    expect(score).toMatchObject({ status: 'NOT-PROVIDED', missing: expect.arrayContaining(['NetIncomeLoss', 'Assets', 'prior.Revenues']) });
    expect(score).not.toHaveProperty('result');
    expect(score).not.toHaveProperty('out_of');
  });
});

describe('exact decimal quotients', () => {
  it('round half to even at 6 places, exactly as rational arithmetic says', () => {
    expect(formatDecimal(divide(parseDecimal('1'), parseDecimal('3'))!)).toBe('0.333333');
    expect(formatDecimal(divide(parseDecimal('5'), parseDecimal('2000000'))!)).toBe('0.000002'); // 0.0000025: to even, down
    expect(formatDecimal(divide(parseDecimal('7'), parseDecimal('2000000'))!)).toBe('0.000004'); // 0.0000035: to even, up
    expect(formatDecimal(divide(parseDecimal('-2'), parseDecimal('3'))!)).toBe('-0.666667');
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), fc.bigInt({ min: 1n, max: 10n ** 9n }), (a, b) => {
        const q = divide({ units: a, scale: 0 }, { units: b, scale: 0 })!;
        // |q - a/b| <= half a unit in the 6th place: |q*b - a*10^6| * 2 <= b.
        const error = q.units * b - a * 10n ** 6n;
        expect(2n * (error < 0n ? -error : error) <= b).toBe(true);
      }),
    );
  });
});
