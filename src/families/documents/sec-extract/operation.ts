import { z } from 'zod';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';
import { htmlNestingDepth, MAX_FACT_NESTING, MAX_HTML_NESTING } from './html-depth.ts';
import { hex64, jsonObject } from '../../../kernel/route-kit/schemas.ts';
import { utilityReceiptResponse } from '../utils-verify/receipt-schema.ts';
import { SEC_EXTRACT_OUTCOMES, SEC_EXTRACT_RULESET } from './vocabulary.ts';
import { FORM_TYPES } from './items.ts';
import { fromThreadedEngine } from '../../../kernel/engine-threads/threaded-command.ts';
import { moduleBeside } from '../../../kernel/worker-script.ts';

const secExtractInput = z
  .object({
    document: z.string().min(1).max(1_000_000).describe('The HTML (inline XBRL included) or the plain text of an EDGAR filing'),
    form_type: z.enum(FORM_TYPES).optional().describe('Otherwise read from dei:DocumentType or the cover page heading'),
  })
  .strict();

const findings = {
  outcome: z.enum(SEC_EXTRACT_OUTCOMES),
  input_format: z.enum(['html', 'text']),
  form_type: z.enum(FORM_TYPES).nullable(),
  form_type_source: z.string(),
  offset_unit: z.string(),
  items: z.array(z.object({ part: z.string().optional(), item: z.string(), title: z.string(), start: z.number().int(), end: z.number().int(), sha256: hex64, characters: z.number().int() })),
  contents_entries_skipped: z.number().int(),
  cover: jsonObject,
  fact_counts: z.object({ nonFraction: z.number().int(), nonNumeric: z.number().int(), not_resolved: z.number().int() }),
  contexts: z.number().int(),
  evidence_source: z.literal('caller-supplied'),
  not_performed: z.array(z.object({ check: z.string(), reason: z.string() })),
  limitations: z.array(z.string()),
};

const EXAMPLE = [
  '<html><body>',
  '<div style="display:none"><ix:header><ix:hidden><ix:nonNumeric name="dei:DocumentType" contextRef="c1">10-K</ix:nonNumeric>',
  '<ix:nonNumeric name="dei:EntityCentralIndexKey" contextRef="c1">0000123456</ix:nonNumeric></ix:hidden>',
  '<ix:resources><xbrli:context id="c1"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">0000123456</xbrli:identifier></xbrli:entity><xbrli:period><xbrli:startDate>2025-01-01</xbrli:startDate><xbrli:endDate>2025-12-31</xbrli:endDate></xbrli:period></xbrli:context>',
  '<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit></ix:resources></ix:header></div>',
  '<p>FORM 10-K</p><p><ix:nonNumeric name="dei:EntityRegistrantName" contextRef="c1">Example Corp</ix:nonNumeric></p>',
  '<p>Item 1. Business</p><p>Example Corp makes examples.</p>',
  '<p>Item 1A. Risk Factors</p><p>Examples may fail.</p>',
  '<p>Item 7. Management’s Discussion and Analysis</p><p>Revenue was $<ix:nonFraction name="us-gaap:Revenues" contextRef="c1" unitRef="usd" decimals="-6" scale="6" format="ixt:num-dot-decimal">1,234</ix:nonFraction> million.</p>',
  '</body></html>',
].join('');

const secExtract = pricedOperation({
  id: 'sec-extract',
  method: 'POST',
  path: '/v1/sec-extract',
  family: 'documents',
  priceUsd: '0.05',
  summary: 'Extraction from an SEC filing.',
  description: `Extracts from an EDGAR filing (rule ${SEC_EXTRACT_RULESET.id}/${SEC_EXTRACT_RULESET.version}), read with an HTML parser (htmlparser2): the items (10-K: Items 1, 1A, 1B, 1C, 2-4, 5-9C, 10-16; 10-Q: Part I and II items; 8-K: item numbers such as 2.02), each with its code-point offsets in the extracted text and its SHA-256, the table of contents skipped; the inline XBRL facts (ix:nonFraction with name, context period, unit, decimals, scale, sign, format and the resolved exact value; ix:nonNumeric with its text); and the cover-page dei facts (registrant, CIK, document type, period end, fiscal year end). The output beside the receipt is RFC 8785 JSON {text, facts}. Outcome: EXTRACTED, NO-ITEMS-FOUND, FORM-TYPE-UNKNOWN. A document whose elements nest more than ${MAX_HTML_NESTING} deep, or its inline XBRL facts more than ${MAX_FACT_NESTING}, is 422 before the quote.`,
  inputFrom: 'json',
  input: secExtractInput,
  example: { document: EXAMPLE },
  output: utilityReceiptResponse('sec-extract', findings),
  keyFamily: 'utils',
  signedMember: null,
  verifyPath: '/v1/utils/verify',
  // Decided by the input alone, before the quote: the parser's time grows with the square of the nesting.
  precheck(input) {
    const depth = htmlNestingDepth(input.document);
    const message =
      depth.elements > MAX_HTML_NESTING ? `the document opens ${depth.elements} elements inside each other; at most ${MAX_HTML_NESTING} are read`
      : depth.facts > MAX_FACT_NESTING ? `the document opens ${depth.facts} inline XBRL facts (ix:nonNumeric, ix:nonFraction) inside each other; at most ${MAX_FACT_NESTING} are read`
      : undefined;
    if (message === undefined) return undefined;
    return { status: 422, error: 'too_deeply_nested', message, outcome: 'INVALID-INPUT', issues: [{ path: 'document', message }] };
  },
  // On an engine thread: a filing of 19,500 inline XBRL facts took 1.4 s.
  command: fromThreadedEngine(moduleBeside(import.meta.url, 'engine'), 'runSecExtract'),
  outputBeside: true,
});

export const secExtractRoutes: Route[] = [secExtract];
