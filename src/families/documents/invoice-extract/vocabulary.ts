/** The words of the invoice extraction's contract, apart from the engine so the catalogue entry names them without loading the XML parser. */
// 2 (2026-11-27): an amount is not read out of a run of digits and letters (1e400 read 400).
export const INVOICE_EXTRACT_RULESET = { id: 'invoice-extract-en16931', version: '2' } as const;
export const INVOICE_EXTRACT_OUTCOMES = ['EXTRACTED', 'INCOMPLETE', 'INCONSISTENT', 'NOT-AN-INVOICE'] as const;
export type InvoiceExtractOutcome = (typeof INVOICE_EXTRACT_OUTCOMES)[number];
