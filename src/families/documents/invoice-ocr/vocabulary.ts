/** The utility name its receipts carry; apart from the engine so the catalogue entry names it without loading the reader. */
export const INVOICE_OCR_ID = 'invoice-ocr';
