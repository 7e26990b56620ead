import type { CommandResult } from '../../../kernel/operation.ts';
import type { JsonValue } from '../../../signing/rfc8785.ts';
import { utilityReceipt } from '../utility-receipt.ts';

export const TRANSLATE_RULESET = { id: 'translate-doc', version: '1', engines: ['translation-memory-exact', 'glossary-terms'] } as const;

export interface Pair {
  source: string;
  target: string;
}

export interface TranslateInput {
  text: string;
  source_lang: string;
  target_lang: string;
  glossary?: Pair[] | undefined;
  memory?: Pair[] | undefined;
}

type Status = 'TM-EXACT' | 'GLOSSARY-TERMS-ONLY' | 'NOT-TRANSLATED';

const normalise = (s: string) => s.normalize('NFC').replace(/\s+/g, ' ').trim();
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Sentences by the Unicode rules for the source language (UAX #29 through Intl.Segmenter). */
function sentences(text: string, lang: string): Array<{ text: string; index: number }> {
  const segmenter = new Intl.Segmenter(lang, { granularity: 'sentence' });
  return [...segmenter.segment(text)].map((s) => ({ text: s.segment, index: s.index }));
}

/** Glossary terms, longest first, as whole words; the count of terms replaced. */
function applyGlossary(segment: string, glossary: Pair[]): { text: string; terms: string[] } {
  const terms: string[] = [];
  let text = segment;
  for (const { source, target } of [...glossary].sort((a, b) => b.source.length - a.source.length || (a.source < b.source ? -1 : 1))) {
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escape(source)}(?![\\p{L}\\p{N}])`, 'gu');
    if (pattern.test(text)) {
      terms.push(source);
      text = text.replace(pattern, target);
    }
  }
  return { text, terms };
}

const codePoints = (s: string) => Array.from(s).length;

export function translateDocument(input: TranslateInput, now: number): CommandResult {
  const memory = new Map((input.memory ?? []).map((p) => [normalise(p.source), p.target]));
  const glossary = input.glossary ?? [];
  const segments: JsonValue[] = [];
  let output = '';
  let translatedChars = 0;
  let glossaryChars = 0;
  let totalChars = 0;
  for (const [i, seg] of sentences(input.text, input.source_lang).entries()) {
    const core = seg.text.trim();
    const lead = seg.text.slice(0, seg.text.indexOf(core));
    const trail = seg.text.slice(lead.length + core.length);
    if (core === '') {
      output += seg.text;
      continue;
    }
    totalChars += codePoints(core);
    const remembered = memory.get(normalise(core));
    let status: Status;
    let result: string;
    let terms: string[] = [];
    if (remembered !== undefined) {
      status = 'TM-EXACT';
      result = remembered;
      translatedChars += codePoints(core);
    } else {
      ({ text: result, terms } = applyGlossary(core, glossary));
      status = terms.length > 0 ? 'GLOSSARY-TERMS-ONLY' : 'NOT-TRANSLATED';
      if (terms.length > 0) glossaryChars += codePoints(core);
    }
    output += lead + result + trail;
    segments.push({ index: i, start: codePoints(input.text.slice(0, seg.index + lead.length)), length: codePoints(core), status, ...(terms.length > 0 ? { glossary_terms: terms } : {}) });
  }
  const share = (n: number) => (totalChars === 0 ? 0 : Math.round((n / totalChars) * 10_000) / 10_000);
  const counts = (s: Status) => segments.filter((x) => (x as { status: Status }).status === s).length;
  return utilityReceipt({
    utility: 'utils.translate-doc',
    now,
    input: input.text,
    output: { content: output, mediaType: 'text/plain; charset=utf-8' },
    ruleset: { ...TRANSLATE_RULESET, engines: [...TRANSLATE_RULESET.engines], rule_based_engine: 'not installed' },
    findings: {
      outcome: counts('NOT-TRANSLATED') + counts('GLOSSARY-TERMS-ONLY') === 0 ? 'TRANSLATED' : counts('TM-EXACT') === 0 && counts('GLOSSARY-TERMS-ONLY') === 0 ? 'NOT-TRANSLATED' : 'PARTIAL',
      source_lang: input.source_lang,
      target_lang: input.target_lang,
      segments,
      segment_counts: { tm_exact: counts('TM-EXACT'), glossary_terms_only: counts('GLOSSARY-TERMS-ONLY'), not_translated: counts('NOT-TRANSLATED') },
      share_translated: share(translatedChars),
      share_with_glossary_terms: share(glossaryChars),
      evidence_source: 'caller-supplied',
      limitations: [
        'no machine translation: only segments that exactly match the supplied translation memory are translated; glossary terms are substituted inside other segments, which otherwise stay in the source language',
        'segments marked NOT-TRANSLATED are returned as they were',
      ],
    },
  });
}
