/** The EN 16931 business terms this extraction reports, with their numbers in the standard. */
export const TERMS = {
  invoice_number: 'BT-1',
  issue_date: 'BT-2',
  currency: 'BT-5',
  due_date: 'BT-9',
  seller_name: 'BT-27',
  seller_vat_id: 'BT-31',
  buyer_name: 'BT-44',
  line_net_total: 'BT-106',
  net_total: 'BT-109',
  tax_total: 'BT-110',
  grand_total: 'BT-112',
  amount_due: 'BT-115',
} as const;
export type Term = keyof typeof TERMS;

export const LINE_TERMS = { name: 'BT-153', quantity: 'BT-129', unit_price: 'BT-146', line_amount: 'BT-131' } as const;

/** A term as found: its value and where it came from, or why it is not given. */
export type Extracted =
  | { bt: string; status: 'FOUND'; value: string; source: string }
  | { bt: string; status: 'NOT-PROVIDED'; reason: string };

export interface InvoiceLine {
  name: string | null;
  quantity: string | null;
  unit_price: string | null;
  line_amount: string | null;
  source: string;
}
