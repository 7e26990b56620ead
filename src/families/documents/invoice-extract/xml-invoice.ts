import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { DECIMAL_PATTERN, HEADER_TERM_KEYS, notProvided, provided, type ExtractedLine, type HeaderTermKey, type InvoiceFields, type TermResult } from './en16931.ts';

/**
 * EN 16931 terms read from the two syntaxes the standard binds (CEN/TS 16931-3-2 for UBL 2.1,
 * CEN/TS 16931-3-3 for UN/CEFACT CII D16B): each term from its element, by path, exactly as
 * written. Namespace prefixes are dropped, so any prefix the sender chose reads the same.
 */

type XmlNode = string | { [name: string]: XmlNode | XmlNode[] };

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  // Values stay text: an amount is never turned into a binary float.
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  // XML's predefined entities are read; a document type declaration is refused before parsing (xmlProblem).
  processEntities: true,
  isArray: (name) => name === 'InvoiceLine' || name === 'CreditNoteLine' || name === 'IncludedSupplyChainTradeLineItem' || name === 'TaxTotal',
});

type XmlDocument = Record<string, XmlNode>;

/**
 * An XML source as the precheck parsed it, which the operation hands to the paid call of the same
 * request (PrecheckHandoff): parsing 500,000 characters again took about 0.15 s.
 */
export interface ParsedXml {
  xml: string;
  document: XmlDocument;
}

/**
 * The document, or the well-formedness problem the operation refuses before the quote. The
 * parse is part of the check: the validator accepts what the parser then refuses (elements
 * nested more than 100 deep), which would otherwise fail the paid call.
 */
export function parseWellFormed(xml: string): { parsed: ParsedXml } | { problem: string } {
  // No e-invoice needs a DTD, and entity declarations are how XML expansion attacks begin.
  if (/<!DOCTYPE/i.test(xml)) return { problem: 'a document type declaration (<!DOCTYPE ...>) is not accepted' };
  const result = XMLValidator.validate(xml);
  if (result !== true) return { problem: `line ${result.err.line}, column ${result.err.col}: ${result.err.msg}` };
  try {
    return { parsed: { xml, document: parseDocument(xml) } };
  } catch (err) {
    return { problem: `the document cannot be read: ${(err as Error).message}` };
  }
}

/** A well-formedness problem, or undefined. */
export function xmlProblem(xml: string): string | undefined {
  const checked = parseWellFormed(xml);
  return 'problem' in checked ? checked.problem : undefined;
}

const parseDocument = (xml: string): XmlDocument => parser.parse(xml) as XmlDocument;

const child = (node: XmlNode | undefined, name: string): XmlNode | undefined => {
  if (node === undefined || typeof node === 'string') return undefined;
  const value = node[name];
  return Array.isArray(value) ? value[0] : value;
};
const children = (node: XmlNode | undefined, name: string): XmlNode[] => {
  if (node === undefined || typeof node === 'string') return [];
  const value = node[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
};
const textOf = (node: XmlNode | undefined): string | undefined => {
  if (node === undefined) return undefined;
  if (typeof node === 'string') return node;
  const text = node['#text'];
  return typeof text === 'string' ? text : undefined;
};
const attribute = (node: XmlNode | undefined, name: string): string | undefined => {
  if (node === undefined || typeof node === 'string') return undefined;
  const value = node[`@${name}`];
  return typeof value === 'string' ? value : undefined;
};

function at(root: XmlNode, rootName: string, path: string[]): { node: XmlNode | undefined; path: string } {
  let node: XmlNode | undefined = root;
  for (const name of path) node = child(node, name);
  return { node, path: [rootName, ...path].join('/') };
}

function term(found: { node: XmlNode | undefined; path: string }, read: (text: string) => string | { reason: string } = (t) => t): TermResult {
  const text = textOf(found.node);
  if (text === undefined || text === '') return notProvided(`${found.path} is absent`);
  const value = read(text);
  return typeof value === 'string' ? provided({ value, source: { path: found.path } }) : notProvided(`${found.path}: ${value.reason}`);
}

const decimal = (text: string) => (DECIMAL_PATTERN.test(text) ? text : { reason: `"${text}" is not a decimal number` });
const isoDay = (text: string) => (/^\d{4}-\d{2}-\d{2}$/.test(text) ? text : { reason: `"${text}" is not an ISO 8601 calendar date` });

/** CII dates are udt:DateTimeString with format 102 (CCYYMMDD), the one format EN 16931 allows. */
function ciiDay(found: { node: XmlNode | undefined; path: string }): TermResult {
  const stamp = child(found.node, 'DateTimeString');
  const path = `${found.path}/DateTimeString`;
  const format = attribute(stamp, 'format');
  if (format !== undefined && format !== '102') return notProvided(`${path} uses format ${format}, not 102 (CCYYMMDD)`);
  return term({ node: stamp, path }, (t) => (/^\d{8}$/.test(t) ? `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}` : { reason: `"${t}" is not CCYYMMDD` }));
}

function ordered(header: Record<HeaderTermKey, TermResult>): Record<HeaderTermKey, TermResult> {
  return Object.fromEntries(HEADER_TERM_KEYS.map((k) => [k, header[k]])) as Record<HeaderTermKey, TermResult>;
}

/** The document-currency tax total: UBL may carry a second TaxTotal in the tax currency (BT-111). */
function ublTaxTotal(doc: XmlNode, rootName: string, currency: string | undefined): TermResult {
  const totals = children(doc, 'TaxTotal');
  const index = totals.findIndex((t) => currency === undefined || attribute(child(t, 'TaxAmount'), 'currencyID') === currency);
  if (index === -1) return notProvided(`${rootName}/TaxTotal/TaxAmount in the invoice currency is absent`);
  return term({ node: child(totals[index], 'TaxAmount'), path: `${rootName}/TaxTotal[${index + 1}]/TaxAmount` }, decimal);
}

function readUbl(doc: XmlNode, rootName: 'Invoice' | 'CreditNote'): InvoiceFields {
  const path = (...p: string[]) => at(doc, rootName, p);
  const currency = textOf(child(doc, 'DocumentCurrencyCode'));
  const seller = ['AccountingSupplierParty', 'Party'];
  const buyer = ['AccountingCustomerParty', 'Party'];
  const totals = ['LegalMonetaryTotal'];
  const header: Record<HeaderTermKey, TermResult> = {
    invoice_number: term(path('ID')),
    issue_date: term(path('IssueDate'), isoDay),
    currency: term(path('DocumentCurrencyCode')),
    due_date: rootName === 'Invoice' ? term(path('DueDate'), isoDay) : term(path('PaymentMeans', 'PaymentDueDate'), isoDay),
    seller_name: term(path(...seller, 'PartyLegalEntity', 'RegistrationName')),
    seller_vat_id: term(path(...seller, 'PartyTaxScheme', 'CompanyID')),
    buyer_name: term(path(...buyer, 'PartyLegalEntity', 'RegistrationName')),
    net_total: term(path(...totals, 'TaxExclusiveAmount'), decimal),
    tax_total: ublTaxTotal(doc, rootName, currency),
    grand_total: term(path(...totals, 'TaxInclusiveAmount'), decimal),
  };
  const lineName = rootName === 'Invoice' ? 'InvoiceLine' : 'CreditNoteLine';
  const quantityName = rootName === 'Invoice' ? 'InvoicedQuantity' : 'CreditedQuantity';
  const lines: ExtractedLine[] = children(doc, lineName).map((line, i) => {
    const linePath = (...p: string[]) => at(line, `${rootName}/${lineName}[${i + 1}]`, p);
    return {
      fields: {
        line_id: term(linePath('ID')),
        item_name: term(linePath('Item', 'Name')),
        quantity: term(linePath(quantityName), decimal),
        unit_price: term(linePath('Price', 'PriceAmount'), decimal),
        line_amount: term(linePath('LineExtensionAmount'), decimal),
      },
    };
  });
  const optional = (name: string) => (child(child(doc, 'LegalMonetaryTotal'), name) === undefined ? undefined : term(path(...totals, name), decimal));
  return {
    header: ordered(header),
    lines,
    structured: { sum_of_line_amounts: term(path(...totals, 'LineExtensionAmount'), decimal), allowance_total: optional('AllowanceTotalAmount'), charge_total: optional('ChargeTotalAmount') },
  };
}

function readCii(doc: XmlNode): InvoiceFields {
  const rootName = 'CrossIndustryInvoice';
  const path = (...p: string[]) => at(doc, rootName, p);
  const transaction = ['SupplyChainTradeTransaction'];
  const agreement = [...transaction, 'ApplicableHeaderTradeAgreement'];
  const settlement = [...transaction, 'ApplicableHeaderTradeSettlement'];
  const summation = [...settlement, 'SpecifiedTradeSettlementHeaderMonetarySummation'];
  const sellerTax = children(at(doc, rootName, [...agreement, 'SellerTradeParty']).node, 'SpecifiedTaxRegistration');
  // BT-31 is the registration with schemeID VA; FC (BT-32) is the tax registration, not the VAT id.
  const vatIndex = sellerTax.findIndex((r) => attribute(child(r, 'ID'), 'schemeID') === 'VA');
  const currency = textOf(at(doc, rootName, [...settlement, 'InvoiceCurrencyCode']).node);
  const taxTotals = children(at(doc, rootName, summation).node, 'TaxTotalAmount');
  const taxIndex = taxTotals.findIndex((t) => currency === undefined || attribute(t, 'currencyID') === currency || attribute(t, 'currencyID') === undefined);
  const header: Record<HeaderTermKey, TermResult> = {
    invoice_number: term(path('ExchangedDocument', 'ID')),
    issue_date: ciiDay(path('ExchangedDocument', 'IssueDateTime')),
    currency: term(path(...settlement, 'InvoiceCurrencyCode')),
    due_date: ciiDay(path(...settlement, 'SpecifiedTradePaymentTerms', 'DueDateDateTime')),
    seller_name: term(path(...agreement, 'SellerTradeParty', 'Name')),
    seller_vat_id:
      vatIndex === -1
        ? notProvided(`${[rootName, ...agreement, 'SellerTradeParty', 'SpecifiedTaxRegistration'].join('/')} with schemeID="VA" is absent`)
        : term({ node: child(sellerTax[vatIndex], 'ID'), path: `${[rootName, ...agreement, 'SellerTradeParty'].join('/')}/SpecifiedTaxRegistration[${vatIndex + 1}]/ID` }),
    buyer_name: term(path(...agreement, 'BuyerTradeParty', 'Name')),
    net_total: term(path(...summation, 'TaxBasisTotalAmount'), decimal),
    tax_total: taxIndex === -1 ? notProvided(`${[rootName, ...summation].join('/')}/TaxTotalAmount in the invoice currency is absent`) : term({ node: taxTotals[taxIndex], path: `${[rootName, ...summation].join('/')}/TaxTotalAmount[${taxIndex + 1}]` }, decimal),
    grand_total: term(path(...summation, 'GrandTotalAmount'), decimal),
  };
  const lines: ExtractedLine[] = children(at(doc, rootName, transaction).node, 'IncludedSupplyChainTradeLineItem').map((line, i) => {
    const linePath = (...p: string[]) => at(line, `${rootName}/${transaction.join('/')}/IncludedSupplyChainTradeLineItem[${i + 1}]`, p);
    return {
      fields: {
        line_id: term(linePath('AssociatedDocumentLineDocument', 'LineID')),
        item_name: term(linePath('SpecifiedTradeProduct', 'Name')),
        quantity: term(linePath('SpecifiedLineTradeDelivery', 'BilledQuantity'), decimal),
        unit_price: term(linePath('SpecifiedLineTradeAgreement', 'NetPriceProductTradePrice', 'ChargeAmount'), decimal),
        line_amount: term(linePath('SpecifiedLineTradeSettlement', 'SpecifiedTradeSettlementLineMonetarySummation', 'LineTotalAmount'), decimal),
      },
    };
  });
  const summationNode = at(doc, rootName, summation).node;
  const optional = (name: string) => (child(summationNode, name) === undefined ? undefined : term(path(...summation, name), decimal));
  return { header: ordered(header), lines, structured: { sum_of_line_amounts: term(path(...summation, 'LineTotalAmount'), decimal), allowance_total: optional('AllowanceTotalAmount'), charge_total: optional('ChargeTotalAmount') } };
}

export type XmlSyntax = 'ubl' | 'cii';

/**
 * Reads a UBL Invoice/CreditNote or a CII CrossIndustryInvoice; another root is said plainly.
 * `checked`: the document the precheck parsed (parseWellFormed), read only if it is of this XML.
 */
export function readXmlInvoice(xml: string, syntax: XmlSyntax, checked?: ParsedXml): InvoiceFields | { wrong_root: string } {
  const parsed = checked?.xml === xml ? checked.document : parseDocument(xml);
  const rootName = Object.keys(parsed).find((k) => !k.startsWith('?') && !k.startsWith('@') && k !== '#text') ?? '(none)';
  const root = parsed[rootName];
  if (syntax === 'ubl' && (rootName === 'Invoice' || rootName === 'CreditNote') && root !== undefined) return readUbl(root, rootName);
  if (syntax === 'cii' && rootName === 'CrossIndustryInvoice' && root !== undefined) return readCii(root);
  return { wrong_root: rootName };
}
