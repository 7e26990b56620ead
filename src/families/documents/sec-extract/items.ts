import { sha256Hex } from '../../../signing/hash.ts';
import { codePointOffsets } from '../../../kernel/uax29-segments.ts';
import { sliceWholeCharacters } from '../../../kernel/whole-characters.ts';

/**
 * The items of a 10-K, 10-Q or 8-K, found as headings ("Item 1A. Risk Factors") at the start of
 * a line of the filing's text. The table of contents lists the same headings first: a heading
 * whose item is headed again later and that is followed closely by another heading is a
 * contents entry, not the item, and is skipped.
 */
export const FORM_TYPES = ['10-K', '10-Q', '8-K'] as const;
export type FormType = (typeof FORM_TYPES)[number];

/** Regulation S-K item numbers of each form (10-K: Part I-IV; 10-Q: Part I and II; 8-K: sections 1-9). */
const TEN_K_ITEMS = ['1', '1A', '1B', '1C', '2', '3', '4', '5', '6', '7', '7A', '8', '9', '9A', '9B', '9C', '10', '11', '12', '13', '14', '15', '16'];
const TEN_Q_ITEMS: Record<'I' | 'II', string[]> = { I: ['1', '2', '3', '4'], II: ['1', '1A', '2', '3', '4', '5', '6'] };
const EIGHT_K_ITEMS = /^[1-9]\.\d{2}$/;

const HEADING = /^[ \t]*item[ \t\u00a0]+(\d{1,2}(?:\.\d{2}|[A-C])?)\b[ \t]*[.:\-\u2013\u2014]?[ \t]*(.*)$/gim;
const PART = /^[ \t]*part[ \t]+(I{1,2}|IV|III)\b/gim;
/** A contents entry is followed by the next heading within this many characters. */
const CONTENTS_GAP = 200;

interface Heading {
  key: string;
  item: string;
  part?: 'I' | 'II';
  title: string;
  at: number;
}

function headings(text: string, form: FormType): Heading[] {
  const parts = [...text.matchAll(PART)].map((m) => ({ at: m.index!, part: m[1]!.toUpperCase() }));
  // Headings and parts both come in text order: the part of a heading is the last one passed.
  let nextPart = 0;
  let currentPart: string | undefined;
  const partAt = (at: number): string | undefined => {
    for (; nextPart < parts.length && parts[nextPart]!.at <= at; nextPart++) currentPart = parts[nextPart]!.part;
    return currentPart;
  };
  const found: Heading[] = [];
  for (const m of text.matchAll(HEADING)) {
    const item = m[1]!.toUpperCase();
    const title = sliceWholeCharacters(m[2]!.trim(), 200);
    const at = m.index! + m[0].length - m[0].trimStart().length;
    if (form === '8-K') {
      if (EIGHT_K_ITEMS.test(item)) found.push({ key: item, item, title, at });
      continue;
    }
    if (form === '10-K') {
      if (TEN_K_ITEMS.includes(item)) found.push({ key: item, item, title, at });
      continue;
    }
    const part = partAt(at) === 'II' ? 'II' : 'I';
    if (TEN_Q_ITEMS[part].includes(item)) found.push({ key: `${part}-${item}`, item, part, title, at });
  }
  return found;
}

function dropContents(found: Heading[]): Heading[] {
  const lastOf = new Map<string, number>();
  found.forEach((h, i) => lastOf.set(h.key, i));
  return found.filter((h, i) => {
    const next = found[i + 1];
    const headedAgain = lastOf.get(h.key)! > i;
    const close = next !== undefined && next.at - h.at < CONTENTS_GAP;
    return !(headedAgain && close);
  });
}

export type FilingItem = {
  part?: string;
  item: string;
  title: string;
  start: number;
  end: number;
  sha256: string;
  characters: number;
};

/** Each item from its heading to the next item's heading (or the end), offsets in code points. */
export function extractItems(text: string, form: FormType): { items: FilingItem[]; contents_entries_skipped: number } {
  const all = headings(text, form);
  const body = dropContents(all);
  const seen = new Set<string>();
  const firstOfEach = body.filter((h) => !seen.has(h.key) && seen.add(h.key));
  // Counted on from heading to heading: counting each from the start of the text was quadratic.
  const cp = codePointOffsets(text);
  const items = firstOfEach.map((h, i) => {
    const endAt = firstOfEach[i + 1]?.at ?? text.length;
    const slice = text.slice(h.at, endAt).trimEnd();
    return { ...(h.part ? { part: h.part } : {}), item: h.item, title: h.title, start: cp(h.at), end: cp(h.at + slice.length), sha256: sha256Hex(slice), characters: [...slice].length };
  });
  return { items, contents_entries_skipped: all.length - body.length };
}
