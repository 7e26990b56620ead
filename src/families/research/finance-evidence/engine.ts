import { canonicalSha256 } from '../../../signing/hash.ts';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { conceptsOf, type Concept, type FinanceInput } from './concepts.ts';
import { abs, add, compare, divide, formatDecimal, parseDecimal, QUOTIENT_DECIMALS, sign, subtract, type Decimal } from '../../../kernel/exact-decimal.ts';

export const FINANCE_RULESET = { id: 'finance-evidence', version: '1', quotient_rounding: `half-even, ${QUOTIENT_DECIMALS} decimal places` } as const;

type Figures = Partial<Record<Concept, string>>;
type Finding = JsonObject;

/** Reads the concepts a finding needs; the names of those absent, or their values. */
function need(figures: Figures, concepts: readonly Concept[]): { missing: Concept[] } | { values: Decimal[]; inputs: Record<string, string> } {
  const missing = concepts.filter((c) => figures[c] === undefined);
  if (missing.length > 0) return { missing };
  return { values: concepts.map((c) => parseDecimal(figures[c]!)), inputs: Object.fromEntries(concepts.map((c) => [c, figures[c]!])) };
}

const notProvided = (id: string, formula: string, missing: string[]): Finding => ({ id, formula, status: 'NOT-PROVIDED', missing });

function ratio(id: string, formula: string, figures: Figures, concepts: readonly Concept[], compute: (v: Decimal[]) => [Decimal, Decimal]): Finding {
  const got = need(figures, concepts);
  if ('missing' in got) return notProvided(id, formula, got.missing);
  const [numerator, denominator] = compute(got.values);
  const result = divide(numerator, denominator);
  if (!result) return { id, formula, status: 'DIVISION-BY-ZERO', inputs: got.inputs, note: 'the denominator is zero: the ratio is undefined' };
  return { id, formula, status: 'COMPUTED', inputs: got.inputs, result: formatDecimal(result) };
}

/** Half a unit in the last place of the least precise figure, for each of the figures summed. */
function toleranceOf(texts: string[]): Decimal {
  const coarsest = Math.min(...texts.map((t) => parseDecimal(t).scale));
  // Each figure rounded to its precision is off by at most half a unit: n figures, n halves.
  return { units: 5n * BigInt(texts.length), scale: coarsest + 1 };
}

function balanceSheetIdentity(figures: Figures): Finding {
  const id = 'balance_sheet_identity';
  const formula = 'Assets = Liabilities + StockholdersEquity';
  const got = need(figures, ['Assets', 'Liabilities', 'StockholdersEquity']);
  if ('missing' in got) return notProvided(id, formula, got.missing);
  const [assets, liabilities, equity] = got.values as [Decimal, Decimal, Decimal];
  const difference = subtract(assets, add(liabilities, equity));
  const tolerance = toleranceOf(Object.values(got.inputs));
  const holds = compare(abs(difference), tolerance) <= 0;
  return { id, formula, status: 'COMPUTED', inputs: got.inputs, result: holds, difference: formatDecimal(difference), tolerance: formatDecimal(tolerance), flag: holds ? null : 'BALANCE-SHEET-DOES-NOT-BALANCE' };
}

function negativeEquity(figures: Figures): Finding {
  const got = need(figures, ['StockholdersEquity']);
  if ('missing' in got) return notProvided('negative_equity', 'StockholdersEquity < 0', got.missing);
  const negative = sign(got.values[0]!) < 0;
  return { id: 'negative_equity', formula: 'StockholdersEquity < 0', status: 'COMPUTED', inputs: got.inputs, result: negative, flag: negative ? 'NEGATIVE-EQUITY' : null };
}

function revenueVersusOperatingCash(figures: Figures): Finding {
  const id = 'revenue_versus_operating_cash_flow';
  const formula = 'Revenues > 0 while NetCashProvidedByOperatingActivities < 0';
  const got = need(figures, ['Revenues', 'NetCashProvidedByOperatingActivities']);
  if ('missing' in got) return notProvided(id, formula, got.missing);
  const [revenue, cash] = got.values as [Decimal, Decimal];
  const divergent = sign(revenue) > 0 && sign(cash) < 0;
  return { id, formula, status: 'COMPUTED', inputs: got.inputs, result: divergent, flag: divergent ? 'REVENUE-WITHOUT-OPERATING-CASH' : null };
}

function cashVersusNetIncome(figures: Figures): Finding {
  const id = 'operating_cash_flow_versus_net_income';
  const formula = 'NetCashProvidedByOperatingActivities / NetIncomeLoss';
  const finding = ratio(id, formula, figures, ['NetCashProvidedByOperatingActivities', 'NetIncomeLoss'], ([cash, income]) => [cash!, income!]);
  if (finding['status'] !== 'COMPUTED') return finding;
  const income = parseDecimal(figures.NetIncomeLoss!);
  const cash = parseDecimal(figures.NetCashProvidedByOperatingActivities!);
  // Profits not backed by cash: the accrual warning of the earnings-quality literature.
  const weak = sign(income) > 0 && compare(cash, income) < 0;
  return { ...finding, flag: weak ? 'EARNINGS-NOT-BACKED-BY-OPERATING-CASH' : null };
}

function currentFindings(figures: Figures): Finding[] {
  return [
    ratio('gross_margin', '(Revenues - CostOfRevenue) / Revenues', figures, ['Revenues', 'CostOfRevenue'], ([r, c]) => [subtract(r!, c!), r!]),
    ratio('operating_margin', 'OperatingIncomeLoss / Revenues', figures, ['OperatingIncomeLoss', 'Revenues'], ([o, r]) => [o!, r!]),
    ratio('net_margin', 'NetIncomeLoss / Revenues', figures, ['NetIncomeLoss', 'Revenues'], ([n, r]) => [n!, r!]),
    negativeEquity(figures),
    revenueVersusOperatingCash(figures),
    cashVersusNetIncome(figures),
    balanceSheetIdentity(figures),
    ratio('debt_to_equity', 'LongTermDebt / StockholdersEquity', figures, ['LongTermDebt', 'StockholdersEquity'], ([d, e]) => [d!, e!]),
    ratio('liabilities_to_assets', 'Liabilities / Assets', figures, ['Liabilities', 'Assets'], ([l, a]) => [l!, a!]),
    ratio('current_ratio', 'AssetsCurrent / LiabilitiesCurrent', figures, ['AssetsCurrent', 'LiabilitiesCurrent'], ([a, l]) => [a!, l!]),
    ratio('quick_ratio', '(AssetsCurrent - InventoryNet) / LiabilitiesCurrent', figures, ['AssetsCurrent', 'InventoryNet', 'LiabilitiesCurrent'], ([a, i, l]) => [subtract(a!, i!), l!]),
    ratio('cash_ratio', 'CashAndCashEquivalents / LiabilitiesCurrent', figures, ['CashAndCashEquivalents', 'LiabilitiesCurrent'], ([c, l]) => [c!, l!]),
    ratio('interest_coverage', 'OperatingIncomeLoss / InterestExpense', figures, ['OperatingIncomeLoss', 'InterestExpense'], ([o, i]) => [o!, i!]),
  ];
}

const growth = (id: string, concept: Concept, now: Figures, before: Figures): Finding => {
  const formula = `(${concept} - prior ${concept}) / |prior ${concept}|`;
  const missing = [...(now[concept] === undefined ? [concept] : []), ...(before[concept] === undefined ? [`prior.${concept}`] : [])];
  if (missing.length > 0) return notProvided(id, formula, missing);
  const [a, b] = [parseDecimal(now[concept]!), parseDecimal(before[concept]!)];
  const result = divide(subtract(a, b), abs(b));
  const inputs = { [concept]: now[concept]!, [`prior.${concept}`]: before[concept]! };
  if (!result) return { id, formula, status: 'DIVISION-BY-ZERO', inputs, note: `prior ${concept} is zero: growth is undefined` };
  return { id, formula, status: 'COMPUTED', inputs, result: formatDecimal(result) };
};

/**
 * The nine Piotroski (2000) signals, each scored 1 or 0 where the statements allow it. Simplified
 * as the record says: year-end assets, not beginning-of-year or average assets.
 */
function piotroski(now: Figures, before: Figures): Finding {
  const value = (f: Figures, c: Concept) => (f[c] === undefined ? undefined : parseDecimal(f[c]!));
  const q = (a: Decimal | undefined, b: Decimal | undefined) => (a && b ? divide(a, b) : undefined);
  const components: JsonObject[] = [];
  const score = (id: string, rule: string, needs: string[], test: () => boolean | undefined) => {
    const passed = test();
    components.push(passed === undefined ? { id, rule, status: 'NOT-PROVIDED', needs } : { id, rule, status: 'COMPUTED', point: passed ? 1 : 0 });
  };
  const roa = (f: Figures) => q(value(f, 'NetIncomeLoss'), value(f, 'Assets'));
  const cfo = value(now, 'NetCashProvidedByOperatingActivities');
  const leverage = (f: Figures) => q(value(f, 'LongTermDebt'), value(f, 'Assets'));
  const current = (f: Figures) => q(value(f, 'AssetsCurrent'), value(f, 'LiabilitiesCurrent'));
  const gross = (f: Figures) => (value(f, 'Revenues') && value(f, 'CostOfRevenue') ? q(subtract(value(f, 'Revenues')!, value(f, 'CostOfRevenue')!), value(f, 'Revenues')) : undefined);
  const turnover = (f: Figures) => q(value(f, 'Revenues'), value(f, 'Assets'));
  const up = (a: Decimal | undefined, b: Decimal | undefined) => (a && b ? compare(a, b) > 0 : undefined);
  score('roa_positive', 'NetIncomeLoss / Assets > 0', ['NetIncomeLoss', 'Assets'], () => { const r = roa(now); return r && sign(r) > 0; });
  score('cfo_positive', 'NetCashProvidedByOperatingActivities > 0', ['NetCashProvidedByOperatingActivities'], () => cfo && sign(cfo) > 0);
  score('roa_improved', 'ROA above prior ROA', ['NetIncomeLoss', 'Assets', 'prior.NetIncomeLoss', 'prior.Assets'], () => up(roa(now), roa(before)));
  score('accruals', 'NetCashProvidedByOperatingActivities > NetIncomeLoss', ['NetCashProvidedByOperatingActivities', 'NetIncomeLoss'], () => (cfo && value(now, 'NetIncomeLoss') ? compare(cfo, value(now, 'NetIncomeLoss')!) > 0 : undefined));
  score('leverage_fell', 'LongTermDebt / Assets below prior', ['LongTermDebt', 'Assets', 'prior.LongTermDebt', 'prior.Assets'], () => up(leverage(before), leverage(now)));
  score('current_ratio_rose', 'AssetsCurrent / LiabilitiesCurrent above prior', ['AssetsCurrent', 'LiabilitiesCurrent', 'prior.AssetsCurrent', 'prior.LiabilitiesCurrent'], () => up(current(now), current(before)));
  score('no_new_shares', 'CommonStockSharesOutstanding not above prior', ['CommonStockSharesOutstanding', 'prior.CommonStockSharesOutstanding'], () => {
    const [a, b] = [value(now, 'CommonStockSharesOutstanding'), value(before, 'CommonStockSharesOutstanding')];
    return a && b ? compare(a, b) <= 0 : undefined;
  });
  score('gross_margin_rose', 'gross margin above prior', ['Revenues', 'CostOfRevenue', 'prior.Revenues', 'prior.CostOfRevenue'], () => up(gross(now), gross(before)));
  score('asset_turnover_rose', 'Revenues / Assets above prior', ['Revenues', 'Assets', 'prior.Revenues', 'prior.Assets'], () => up(turnover(now), turnover(before)));
  const computed = components.filter((c) => c['status'] === 'COMPUTED');
  const formula = 'sum of the nine Piotroski (2000) signals the statements allow';
  const note = 'year-end total assets stand in for beginning-of-year assets';
  // No signal computable: no score at all, as any finding whose concepts are absent (not 0 out of 0).
  if (computed.length === 0) return { id: 'piotroski_f_score', formula, status: 'NOT-PROVIDED', missing: [...new Set(components.flatMap((c) => c['needs'] as string[]))], components, note };
  return {
    id: 'piotroski_f_score',
    formula,
    status: 'COMPUTED',
    result: computed.reduce((sum, c) => sum + (c['point'] as number), 0),
    out_of: computed.length,
    components,
    note,
  };
}

export function analyseStatement(input: FinanceInput, now: number): JsonObject {
  const figures = conceptsOf(input.statement);
  const findings = currentFindings(figures);
  if (input.prior) {
    const before = conceptsOf(input.prior);
    findings.push(growth('revenue_growth', 'Revenues', figures, before), growth('net_income_growth', 'NetIncomeLoss', figures, before), growth('assets_growth', 'Assets', figures, before), piotroski(figures, before));
    const revenueUp = figures.Revenues && before.Revenues && compare(parseDecimal(figures.Revenues), parseDecimal(before.Revenues)) > 0;
    const cashNegative = figures.NetCashProvidedByOperatingActivities && sign(parseDecimal(figures.NetCashProvidedByOperatingActivities)) < 0;
    if (revenueUp && cashNegative) findings.push({ id: 'growth_without_cash', formula: 'Revenues above prior while NetCashProvidedByOperatingActivities < 0', status: 'COMPUTED', inputs: { Revenues: figures.Revenues!, 'prior.Revenues': before.Revenues!, NetCashProvidedByOperatingActivities: figures.NetCashProvidedByOperatingActivities! }, result: true, flag: 'REVENUE-UP-OPERATING-CASH-NEGATIVE' });
  }
  const count = (status: string) => findings.filter((f) => f['status'] === status).length;
  const computed = count('COMPUTED');
  return {
    kind: 'financial-evidence',
    ruleset: { ...FINANCE_RULESET },
    outcome: computed === 0 ? 'INSUFFICIENT-DATA' : 'FINDINGS',
    currency: input.statement.currency,
    period_end: input.statement.period_end,
    prior_period_end: input.prior?.period_end ?? null,
    evidence_source: 'caller-supplied',
    statement_sha256: canonicalSha256(input),
    findings,
    flags: findings.flatMap((f) => (typeof f['flag'] === 'string' ? [f['flag']] : [])),
    summary: { computed, not_provided: count('NOT-PROVIDED'), division_by_zero: count('DIVISION-BY-ZERO') },
    not_performed: [{ check: 'comparison with filed or audited statements', reason: 'the service reads only the statement supplied; it fetches nothing' }],
    analyzedAt: now,
  };
}
