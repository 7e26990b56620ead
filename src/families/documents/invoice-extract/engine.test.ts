import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { extractInvoice, extractInvoiceFromText } from './engine.ts';
import { UBL_EXAMPLE } from './operation.ts';
import { readAmount, readDate } from './text-invoice.ts';

const findingsOf = (input: Parameters<typeof extractInvoice>[0]) => extractInvoice(input, 1_767_225_600).record['utility_result'] as JsonObject & { terms: Record<string, JsonObject>; arithmetic: JsonObject[] };
const CII = `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100" xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
  <rsm:ExchangedDocument><ram:ID>FX-77</ram:ID><ram:IssueDateTime><udt:DateTimeString format="102">20260301</udt:DateTimeString></ram:IssueDateTime></rsm:ExchangedDocument>
  <rsm:SupplyChainTradeTransaction>
    <ram:IncludedSupplyChainTradeLineItem><ram:SpecifiedTradeProduct><ram:Name>Widget</ram:Name></ram:SpecifiedTradeProduct><ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount>12.50</ram:ChargeAmount></ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement><ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="C62">4</ram:BilledQuantity></ram:SpecifiedLineTradeDelivery><ram:SpecifiedLineTradeSettlement><ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>50.00</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation></ram:SpecifiedLineTradeSettlement></ram:IncludedSupplyChainTradeLineItem>
    <ram:ApplicableHeaderTradeAgreement><ram:SellerTradeParty><ram:Name>Vendeur SA</ram:Name><ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">FR12345678901</ram:ID></ram:SpecifiedTaxRegistration></ram:SellerTradeParty><ram:BuyerTradeParty><ram:Name>Acheteur SARL</ram:Name></ram:BuyerTradeParty></ram:ApplicableHeaderTradeAgreement>
    <ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode><ram:SpecifiedTradeSettlementHeaderMonetarySummation><ram:LineTotalAmount>50.00</ram:LineTotalAmount><ram:TaxBasisTotalAmount>50.00</ram:TaxBasisTotalAmount><ram:TaxTotalAmount currencyID="EUR">10.00</ram:TaxTotalAmount><ram:GrandTotalAmount>61.00</ram:GrandTotalAmount><ram:DuePayableAmount>61.00</ram:DuePayableAmount></ram:SpecifiedTradeSettlementHeaderMonetarySummation></ram:ApplicableHeaderTradeSettlement>
  </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>`;

describe('invoice extraction', () => {
  it('UBL: exact terms with their paths, and the arithmetic rules hold', () => {
    const f = findingsOf({ ubl_xml: UBL_EXAMPLE });
    expect(f['outcome']).toBe('EXTRACTED');
    expect(f.terms['invoice_number']).toEqual({ bt: 'BT-1', status: 'FOUND', value: 'INV-2026-0042', source: 'ID' });
    expect(f.terms).toMatchObject({ seller_vat_id: { value: 'DE123456789' }, seller_name: { value: 'Muster GmbH' }, buyer_name: { value: 'Example Buyer Ltd' }, tax_total: { value: '57.00' }, grand_total: { value: '357.00' }, due_date: { value: '2026-02-14' } });
    expect(f.arithmetic.map((c) => [c['id'], c['status']])).toEqual([['line_0_amount', 'HOLDS'], ['line_1_amount', 'HOLDS'], ['lines_sum_to_net', 'HOLDS'], ['net_plus_tax_is_total', 'HOLDS']]);
  });

  it('CII: dates in format 102, and a grand total that does not add up is reported', () => {
    const f = findingsOf({ cii_xml: CII });
    expect(f.terms).toMatchObject({ invoice_number: { value: 'FX-77' }, issue_date: { value: '2026-03-01' }, seller_vat_id: { value: 'FR12345678901' }, currency: { value: 'EUR' } });
    expect(f['outcome']).toBe('EXTRACTED-WITH-INCONSISTENCIES');
    expect(f.arithmetic.find((c) => c['id'] === 'net_plus_tax_is_total')).toEqual({ id: 'net_plus_tax_is_total', formula: expect.any(String), status: 'FAILS', left: '60', right: '61' });
  });

  it('text: labelled values, exact checks, ambiguous dates not guessed, missing terms named', () => {
    const text = ['Seller: Acme Supplies Ltd', 'VAT No: GB123456789', 'Bill to: Jane Customer', 'Invoice No: A-1001', 'Invoice date: 03/04/2026', 'Due date: 2026-05-04', '', 'Paper A4      10 x 4.50   45.00', 'Toner         1 x 55.00   55.00', '', 'Subtotal: GBP 100.00', 'VAT 20%: 20.00', 'Total: 120.00'].join('\n');
    const f = extractInvoiceFromText(text) as JsonObject & { terms: Record<string, JsonObject>; arithmetic: JsonObject[]; lines: JsonObject[] };
    expect(f.terms).toMatchObject({ invoice_number: { value: 'A-1001' }, seller_name: { value: 'Acme Supplies Ltd' }, seller_vat_id: { value: 'GB123456789' }, buyer_name: { value: 'Jane Customer' }, currency: { value: 'GBP' }, net_total: { value: '100.00' }, tax_total: { value: '20.00' }, grand_total: { value: '120.00' }, due_date: { value: '2026-05-04' } });
    expect(f.terms['issue_date']).toEqual({ bt: 'BT-2', status: 'NOT-PROVIDED', reason: '03/04/2026 is ambiguous: day/month or month/day; not guessed' });
    expect(f.lines.map((l) => [l['name'], l['quantity'], l['unit_price'], l['line_amount']])).toEqual([['Paper A4', '10', '4.50', '45.00'], ['Toner', '1', '55.00', '55.00']]);
    expect(f.arithmetic.every((c) => c['status'] === 'HOLDS')).toBe(true);
  });

  it('reads amounts as written, and refuses to guess 1.234', () => {
    expect(readAmount('1,234.56')).toEqual({ value: '1234.56' });
    expect(readAmount('1.234,56')).toEqual({ value: '1234.56' });
    expect(readAmount('1.234.567')).toEqual({ value: '1234567' });
    expect(readAmount('12,5')).toEqual({ value: '12.5' });
    expect(readAmount('1.234')).toHaveProperty('reason');
    expect(readDate('15 March 2026')).toEqual({ value: '2026-03-15' });
    expect(readDate('31.12.2025')).toEqual({ value: '2025-12-31' });
  });

  it('the same input gives the same bytes', () => {
    expect(JSON.stringify(extractInvoice({ ubl_xml: UBL_EXAMPLE }, 1))).toBe(JSON.stringify(extractInvoice({ ubl_xml: UBL_EXAMPLE }, 1)));
  });
});
