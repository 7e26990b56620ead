import { z } from 'zod';
import { fromEngine, pricedOperation, type Route } from '../../../kernel/operation.ts';
import { signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { BALANCE_SHEET_CONCEPTS, CASH_FLOW_CONCEPTS, INCOME_STATEMENT_CONCEPTS } from './concepts.ts';
import { analyseStatement, FINANCE_RULESET } from './engine.ts';
import { DECIMAL_PATTERN } from '../../../kernel/exact-decimal.ts';

const amount = z.string().regex(DECIMAL_PATTERN, 'must be a decimal string such as "1250000" or "-3.5" (at most 18 digits before the point and 6 after)');
const section = <C extends readonly string[]>(concepts: C, what: string) =>
  z
    .object(Object.fromEntries(concepts.map((c) => [c, amount.optional()])) as Record<C[number], z.ZodOptional<typeof amount>>)
    .strict()
    .describe(`${what}: US-GAAP concept names (${concepts.join(', ')}), amounts as decimal strings`);

// The currencies the host's ICU knows as in use (ISO 4217 less the historic codes, XXX and XTS): a
// statement's amounts are in a currency, and three capital letters alone took ABC and XXX.
const CURRENCIES_IN_USE = Intl.supportedValuesOf('currency') as [string, ...string[]];

const statement = z
  .object({
    currency: z.enum(CURRENCIES_IN_USE, { error: 'must be the ISO 4217 code of a currency in use, such as USD (XXX, "no currency", and XTS, "for testing", are not)' }),
    period_end: z.iso.date().describe('The last day of the period, YYYY-MM-DD'),
    income_statement: section(INCOME_STATEMENT_CONCEPTS, 'Income statement'),
    balance_sheet: section(BALANCE_SHEET_CONCEPTS, 'Balance sheet at period end'),
    cash_flow: section(CASH_FLOW_CONCEPTS, 'Cash flow statement'),
  })
  .strict();

const financeInput = z.object({ statement, prior: statement.optional().describe('The same shape for the prior period: adds growth rates and the Piotroski signals') }).strict();

const finding = z.looseObject({ id: z.string(), formula: z.string(), status: z.enum(['COMPUTED', 'NOT-PROVIDED', 'DIVISION-BY-ZERO']) });
const financeRecord = z.object({
  kind: z.literal('financial-evidence'),
  ruleset: z.object({ id: z.literal(FINANCE_RULESET.id), version: z.string(), quotient_rounding: z.string() }),
  outcome: z.enum(['FINDINGS', 'INSUFFICIENT-DATA']),
  currency: z.string(),
  period_end: z.string(),
  prior_period_end: z.string().nullable(),
  evidence_source: z.literal('caller-supplied'),
  statement_sha256: z.string(),
  findings: z.array(finding),
  flags: z.array(z.string()),
  summary: z.object({ computed: z.number().int(), not_provided: z.number().int(), division_by_zero: z.number().int() }),
  not_performed: z.array(z.object({ check: z.string(), reason: z.string() })),
  analyzedAt: z.number().int(),
});

export const FINANCE_EXAMPLE = {
  statement: {
    currency: 'USD',
    period_end: '2025-12-31',
    income_statement: { Revenues: '1200000', CostOfRevenue: '700000', OperatingIncomeLoss: '180000', NetIncomeLoss: '120000', InterestExpense: '20000' },
    balance_sheet: { Assets: '2000000', Liabilities: '1300000', StockholdersEquity: '700000', AssetsCurrent: '600000', LiabilitiesCurrent: '400000', CashAndCashEquivalents: '150000', InventoryNet: '200000', LongTermDebt: '500000' },
    cash_flow: { NetCashProvidedByOperatingActivities: '160000', CapitalExpenditures: '90000' },
  },
};

const attestedEvidence = pricedOperation({
  id: 'finance.attested-evidence',
  method: 'POST',
  path: '/v1/finance/attested-evidence',
  family: 'research',
  priceUsd: '0.35',
  summary: 'Findings from the supplied statement only: margins, negative equity, revenue versus operating cash flow, balance-sheet identity, leverage, liquidity; missing fields reported as not provided.',
  description:
    'Every finding carries its formula, the inputs it used and its result in exact decimal arithmetic (quotients rounded half to even to 6 places). A finding whose concepts are absent is NOT-PROVIDED and names them; a zero denominator is DIVISION-BY-ZERO. With `prior`: growth rates and the Piotroski F-score signals the data allows. docs/operations/research/finance-attested-evidence.md lists every rule.',
  inputFrom: 'json',
  input: financeInput,
  example: FINANCE_EXAMPLE,
  output: signedResponse(financeRecord, 'evidenceCore'),
  keyFamily: 'synthesis',
  signedMember: 'evidenceCore',
  verifyPath: '/v1/synthesis/verify',
  precheck(input) {
    if (!input.prior) return undefined;
    const issues = [
      ...(input.prior.currency !== input.statement.currency ? [{ path: 'prior.currency', message: `is ${input.prior.currency}, the statement is in ${input.statement.currency}: compare like with like` }] : []),
      ...(input.prior.period_end >= input.statement.period_end ? [{ path: 'prior.period_end', message: `${input.prior.period_end} is not before ${input.statement.period_end}` }] : []),
    ];
    // The message names every field, as the issues do: "is USD, ..." alone does not say which.
    const message = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
    return issues.length === 0 ? undefined : { status: 422, error: 'prior_not_comparable', message, outcome: 'INVALID-INPUT', issues };
  },
  command: fromEngine(analyseStatement),
});

export const financeEvidence: Route[] = [attestedEvidence];
