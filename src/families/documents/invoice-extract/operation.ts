import { z } from 'zod';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';
import { utilityResponse } from '../utility-receipt.ts';
import { extractInvoice } from './engine.ts';

// Within the 1 MiB JSON body limit whatever the escaping.
const MAX = 400_000;
const input = z.union([
  z.object({ text: z.string().min(1).max(MAX).describe('The invoice as plain text') }).strict(),
  z.object({ ubl_xml: z.string().min(1).max(MAX).describe('An OASIS UBL 2.1 Invoice or CreditNote (e.g. Peppol BIS 3.0)') }).strict(),
  z.object({ cii_xml: z.string().min(1).max(MAX).describe('A UN/CEFACT Cross Industry Invoice (e.g. Factur-X, ZUGFeRD, XRechnung CII)') }).strict(),
]);

export const UBL_EXAMPLE = `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:ID>INV-2026-0042</cbc:ID>
  <cbc:IssueDate>2026-01-15</cbc:IssueDate>
  <cbc:DueDate>2026-02-14</cbc:DueDate>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cac:AccountingSupplierParty><cac:Party><cac:PartyTaxScheme><cbc:CompanyID>DE123456789</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme><cac:PartyLegalEntity><cbc:RegistrationName>Muster GmbH</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty><cac:Party><cac:PartyLegalEntity><cbc:RegistrationName>Example Buyer Ltd</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party></cac:AccountingCustomerParty>
  <cac:TaxTotal><cbc:TaxAmount currencyID="EUR">57.00</cbc:TaxAmount></cac:TaxTotal>
  <cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="EUR">300.00</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="EUR">300.00</cbc:TaxExclusiveAmount><cbc:TaxInclusiveAmount currencyID="EUR">357.00</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">357.00</cbc:PayableAmount></cac:LegalMonetaryTotal>
  <cac:InvoiceLine><cbc:ID>1</cbc:ID><cbc:InvoicedQuantity unitCode="C62">2</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">200.00</cbc:LineExtensionAmount><cac:Item><cbc:Name>Consulting hour</cbc:Name></cac:Item><cac:Price><cbc:PriceAmount currencyID="EUR">100.00</cbc:PriceAmount></cac:Price></cac:InvoiceLine>
  <cac:InvoiceLine><cbc:ID>2</cbc:ID><cbc:InvoicedQuantity unitCode="C62">1</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount><cac:Item><cbc:Name>Travel</cbc:Name></cac:Item><cac:Price><cbc:PriceAmount currencyID="EUR">100.00</cbc:PriceAmount></cac:Price></cac:InvoiceLine>
</Invoice>
`;

export const invoiceExtractOperation = pricedOperation({
  id: 'utils.invoice-extract',
  method: 'POST',
  path: '/v1/utils/invoice-extract',
  family: 'documents',
  priceUsd: '0.10',
  summary: 'Extracts vendor, amount, date, line items.',
  description:
    'One of {text}, {ubl_xml}, {cii_xml}. The EN 16931 terms where present (BT-1 number, BT-2 issue date, BT-9 due date, BT-5 currency, BT-27 seller, BT-31 seller VAT id, BT-44 buyer, BG-25 lines with BT-129/BT-146/BT-131, BT-106, BT-109, BT-110, BT-112, BT-115), each with its source; the arithmetic rules checked in exact decimals; a missing term NOT-PROVIDED, an ambiguous date or amount NOT-PROVIDED with the reason. XML gives exact extraction; a DOCTYPE is refused.',
  inputFrom: 'json',
  input,
  example: { ubl_xml: UBL_EXAMPLE },
  output: utilityResponse('utils.invoice-extract', { outcome: z.enum(['EXTRACTED', 'EXTRACTED-WITH-INCONSISTENCIES', 'INSUFFICIENT-DATA']), source_format: z.enum(['text', 'ubl', 'cii']) }),
  keyFamily: 'utils',
  signedMember: null,
  verifyPath: '/v1/utils/verify',
  outputBeside: true,
  precheck(i) {
    const xml = 'ubl_xml' in i ? i.ubl_xml : 'cii_xml' in i ? i.cii_xml : undefined;
    // No document type declarations: no entity expansion, no external references, ever.
    if (xml !== undefined && /<!DOCTYPE/i.test(xml))
      return { status: 422, error: 'xml_doctype_refused', message: 'XML with a DOCTYPE declaration is refused (entity expansion); invoices need none', outcome: 'INVALID-INPUT', issues: [{ path: 'ubl_xml' in i ? 'ubl_xml' : 'cii_xml', message: 'contains a DOCTYPE declaration' }] };
    return undefined;
  },
  command: { execute: async (i, ctx) => extractInvoice(i, ctx.now) },
});

export const invoiceExtractRoutes: Route[] = [invoiceExtractOperation];
