/**
 * The statement concepts the findings read, named as US-GAAP taxonomy elements are, by section.
 * A statement may carry any subset; a finding whose concepts are absent is NOT-PROVIDED.
 */
export const INCOME_STATEMENT_CONCEPTS = ['Revenues', 'CostOfRevenue', 'GrossProfit', 'OperatingIncomeLoss', 'NetIncomeLoss', 'InterestExpense'] as const;
export const BALANCE_SHEET_CONCEPTS = [
  'Assets',
  'Liabilities',
  'StockholdersEquity',
  'AssetsCurrent',
  'LiabilitiesCurrent',
  'CashAndCashEquivalents',
  'InventoryNet',
  'LongTermDebt',
  'CommonStockSharesOutstanding',
] as const;
export const CASH_FLOW_CONCEPTS = ['NetCashProvidedByOperatingActivities', 'CapitalExpenditures'] as const;

export type Concept = (typeof INCOME_STATEMENT_CONCEPTS)[number] | (typeof BALANCE_SHEET_CONCEPTS)[number] | (typeof CASH_FLOW_CONCEPTS)[number];

export interface Statement {
  currency: string;
  period_end: string;
  income_statement: Partial<Record<(typeof INCOME_STATEMENT_CONCEPTS)[number], string>>;
  balance_sheet: Partial<Record<(typeof BALANCE_SHEET_CONCEPTS)[number], string>>;
  cash_flow: Partial<Record<(typeof CASH_FLOW_CONCEPTS)[number], string>>;
}

export interface FinanceInput {
  statement: Statement;
  prior?: Statement | undefined;
}

/** Every concept of a statement in one map: each name belongs to exactly one section. */
export function conceptsOf(statement: Statement): Partial<Record<Concept, string>> {
  return { ...statement.income_statement, ...statement.balance_sheet, ...statement.cash_flow };
}
