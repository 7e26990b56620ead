import { XMLParser } from 'fast-xml-parser';
import { TERMS, type Extracted, type InvoiceLine, type Term } from './en16931.ts';

type Node = Record<string, unknown>;

/** Namespace prefixes dropped, every value kept as text (amounts are never parsed as floats). */
const parser = new XMLParser({ removeNSPrefix: true, ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, parseAttributeValue: false, processEntities: false, isArray: (name) => ['InvoiceLine', 'IncludedSupplyChainTradeLineItem', 'TaxTotal', 'SpecifiedTaxRegistration', 'PartyTaxScheme'].includes(name) });

function at(node: unknown, path: string[]): unknown {
  let current: unknown = node;
  for (const step of path) {
    if (Array.isArray(current)) current = current[0];
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Node)[step];
  }
  return Array.isArray(current) ? current[0] : current;
}

const textOf = (v: unknown): string | undefined => (typeof v === 'string' ? v.trim() : v && typeof v === 'object' && typeof (v as Node)['#text'] === 'string' ? ((v as Node)['#text'] as string).trim() : undefined);

function term(root: unknown, name: Term, path: string[], transform: (s: string) => string = (s) => s): Extracted {
  const value = textOf(at(root, path));
  if (value === undefined || value === '') return { bt: TERMS[name], status: 'NOT-PROVIDED', reason: `no ${path.join('/')} element` };
  return { bt: TERMS[name], status: 'FOUND', value: transform(value), source: path.join('/') };
}

/** CII dates are format 102, YYYYMMDD. */
const cii102 = (s: string) => (/^\d{8}$/.test(s) ? `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}` : s);

export type XmlParse = { terms: Record<string, Extracted>; lines: InvoiceLine[] } | { unusable: string };

export function extractFromUbl(xml: string): XmlParse {
  const doc = parser.parse(xml) as Node;
  const inv = doc['Invoice'] ?? doc['CreditNote'];
  if (!inv) return { unusable: 'not a UBL Invoice or CreditNote document (root element)' };
  const supplier = ['AccountingSupplierParty', 'Party'];
  const customer = ['AccountingCustomerParty', 'Party'];
  const pick = (a: Extracted, b: Extracted) => (a.status === 'FOUND' ? a : b);
  const terms: Record<string, Extracted> = {
    invoice_number: term(inv, 'invoice_number', ['ID']),
    issue_date: term(inv, 'issue_date', ['IssueDate']),
    due_date: pick(term(inv, 'due_date', ['DueDate']), term(inv, 'due_date', ['PaymentMeans', 'PaymentDueDate'])),
    currency: term(inv, 'currency', ['DocumentCurrencyCode']),
    seller_name: pick(term(inv, 'seller_name', [...supplier, 'PartyLegalEntity', 'RegistrationName']), term(inv, 'seller_name', [...supplier, 'PartyName', 'Name'])),
    seller_vat_id: term(inv, 'seller_vat_id', [...supplier, 'PartyTaxScheme', 'CompanyID']),
    buyer_name: pick(term(inv, 'buyer_name', [...customer, 'PartyLegalEntity', 'RegistrationName']), term(inv, 'buyer_name', [...customer, 'PartyName', 'Name'])),
    line_net_total: term(inv, 'line_net_total', ['LegalMonetaryTotal', 'LineExtensionAmount']),
    net_total: term(inv, 'net_total', ['LegalMonetaryTotal', 'TaxExclusiveAmount']),
    tax_total: term(inv, 'tax_total', ['TaxTotal', 'TaxAmount']),
    grand_total: term(inv, 'grand_total', ['LegalMonetaryTotal', 'TaxInclusiveAmount']),
    amount_due: term(inv, 'amount_due', ['LegalMonetaryTotal', 'PayableAmount']),
  };
  const rawLines = ((inv as Node)['InvoiceLine'] as unknown[] | undefined) ?? [];
  const lines = rawLines.map((line, i) => ({
    name: textOf(at(line, ['Item', 'Name'])) ?? null,
    quantity: textOf(at(line, ['InvoicedQuantity'])) ?? null,
    unit_price: textOf(at(line, ['Price', 'PriceAmount'])) ?? null,
    line_amount: textOf(at(line, ['LineExtensionAmount'])) ?? null,
    source: `InvoiceLine[${i}]`,
  }));
  return { terms, lines };
}

export function extractFromCii(xml: string): XmlParse {
  const doc = parser.parse(xml) as Node;
  const inv = doc['CrossIndustryInvoice'];
  if (!inv) return { unusable: 'not a UN/CEFACT CrossIndustryInvoice document (root element)' };
  const tx = ['SupplyChainTradeTransaction'];
  const agreement = [...tx, 'ApplicableHeaderTradeAgreement'];
  const settlement = [...tx, 'ApplicableHeaderTradeSettlement'];
  const sums = [...settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation'];
  const terms: Record<string, Extracted> = {
    invoice_number: term(inv, 'invoice_number', ['ExchangedDocument', 'ID']),
    issue_date: term(inv, 'issue_date', ['ExchangedDocument', 'IssueDateTime', 'DateTimeString'], cii102),
    due_date: term(inv, 'due_date', [...settlement, 'SpecifiedTradePaymentTerms', 'DueDateDateTime', 'DateTimeString'], cii102),
    currency: term(inv, 'currency', [...settlement, 'InvoiceCurrencyCode']),
    seller_name: term(inv, 'seller_name', [...agreement, 'SellerTradeParty', 'Name']),
    seller_vat_id: term(inv, 'seller_vat_id', [...agreement, 'SellerTradeParty', 'SpecifiedTaxRegistration', 'ID']),
    buyer_name: term(inv, 'buyer_name', [...agreement, 'BuyerTradeParty', 'Name']),
    line_net_total: term(inv, 'line_net_total', [...sums, 'LineTotalAmount']),
    net_total: term(inv, 'net_total', [...sums, 'TaxBasisTotalAmount']),
    tax_total: term(inv, 'tax_total', [...sums, 'TaxTotalAmount']),
    grand_total: term(inv, 'grand_total', [...sums, 'GrandTotalAmount']),
    amount_due: term(inv, 'amount_due', [...sums, 'DuePayableAmount']),
  };
  const rawLines = (at(inv, tx) as Node | undefined)?.['IncludedSupplyChainTradeLineItem'] as unknown[] | undefined;
  const lines = (rawLines ?? []).map((line, i) => ({
    name: textOf(at(line, ['SpecifiedTradeProduct', 'Name'])) ?? null,
    quantity: textOf(at(line, ['SpecifiedLineTradeDelivery', 'BilledQuantity'])) ?? null,
    unit_price: textOf(at(line, ['SpecifiedLineTradeAgreement', 'NetPriceProductTradePrice', 'ChargeAmount'])) ?? null,
    line_amount: textOf(at(line, ['SpecifiedLineTradeSettlement', 'SpecifiedTradeSettlementLineMonetarySummation', 'LineTotalAmount'])) ?? null,
    source: `IncludedSupplyChainTradeLineItem[${i}]`,
  }));
  return { terms, lines };
}
