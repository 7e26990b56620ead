import type { CommandResult } from '../../../kernel/operation.ts';
import { canonicalText, type JsonObject } from '../../../signing/rfc8785.ts';
import { utilityReceipt } from '../utility-receipt.ts';
import { parseFilingHtml, tidy, type ParsedFiling } from './filing-html.ts';
import { extractItems, FORM_TYPES, type FormType } from './items.ts';
import { coverFacts, resolveFact } from './xbrl.ts';
import { SEC_EXTRACT_RULESET } from './vocabulary.ts';

export interface SecExtractInput {
  document: string;
  form_type?: FormType | undefined;
}

/** Markup is present when a tag opens somewhere; the parser, not this test, reads it. */
const looksLikeHtml = (document: string) => /<\s*[A-Za-z!/?]/.test(document);

function formTypeOf(input: SecExtractInput, cover: JsonObject, text: string): { form?: FormType; source: string } {
  if (input.form_type) return { form: input.form_type, source: 'caller-supplied' };
  const documentType = cover['document_type'] as JsonObject;
  if (documentType['status'] === 'PROVIDED') {
    const declared = String(documentType['value']).toUpperCase().replace(/\/A$/, '').trim();
    const form = FORM_TYPES.find((f) => f === declared);
    if (form) return { form, source: 'dei:DocumentType' };
  }
  const heading = /\bFORM\s+(10-K|10-Q|8-K)\b/i.exec(text.slice(0, 5_000));
  if (heading) return { form: heading[1]!.toUpperCase() as FormType, source: 'cover-page heading' };
  return { source: 'not-determined' };
}

export function runSecExtract(input: SecExtractInput, now: number): CommandResult {
  const html = looksLikeHtml(input.document);
  const filing: ParsedFiling = html ? parseFilingHtml(input.document) : { text: tidy(input.document), facts: [], contexts: new Map(), units: new Map() };
  const facts = filing.facts.map((f) => resolveFact(f, filing));
  const cover = coverFacts(facts);
  const { form, source } = formTypeOf(input, cover, filing.text);
  const extracted = form ? extractItems(filing.text, form) : { items: [], contents_entries_skipped: 0 };
  const outcome = !form ? 'FORM-TYPE-UNKNOWN' : extracted.items.length === 0 ? 'NO-ITEMS-FOUND' : 'EXTRACTED';
  const unresolved = facts.filter((f) => f['status'] === 'NOT-RESOLVED').length;

  return utilityReceipt({
    utility: 'sec-extract',
    now,
    input: input.document,
    output: { content: canonicalText({ text: filing.text, facts }), mediaType: 'application/json' },
    ruleset: { ...SEC_EXTRACT_RULESET },
    findings: {
      outcome,
      input_format: html ? 'html' : 'text',
      form_type: form ?? null,
      form_type_source: source,
      offset_unit: 'unicode-code-point of output.text',
      items: extracted.items,
      contents_entries_skipped: extracted.contents_entries_skipped,
      cover,
      fact_counts: { nonFraction: facts.filter((f) => f['type'] === 'nonFraction').length, nonNumeric: facts.filter((f) => f['type'] === 'nonNumeric').length, not_resolved: unresolved },
      contexts: filing.contexts.size,
      evidence_source: 'caller-supplied',
      not_performed: [
        { check: 'retrieval from EDGAR', reason: 'the document is the caller\'s; nothing is fetched, so it is not shown to be the filed version' },
        { check: 'XBRL validation (taxonomy, calculation linkbase)', reason: 'facts are read as tagged, not validated against the taxonomy' },
      ],
      limitations: [
        'Items are found by their headings at the start of a line; a filing that heads items otherwise is reported with fewer items.',
        'ix:continuation chains are not followed; a nonNumeric value is the text inside its own element.',
        'Transformation formats other than number with dot or comma decimal and fixed-zero are NOT-RESOLVED.',
      ],
    },
  });
}
