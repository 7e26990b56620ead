import { Parser } from 'htmlparser2';

/**
 * One pass of an HTML parser (htmlparser2) over an EDGAR filing: the visible text, with a line
 * break at every block element, and the inline XBRL it carries (ix:nonFraction, ix:nonNumeric,
 * and the xbrli:context and xbrli:unit definitions of ix:resources). Never regular expressions
 * over the HTML itself.
 */

export interface RawFact {
  kind: 'nonFraction' | 'nonNumeric';
  attributes: Record<string, string>;
  text: string;
  /** Inside ix:hidden: a fact not shown on the page (cover facts often are). */
  hidden: boolean;
}

export interface XbrlContext {
  id: string;
  entity?: string;
  instant?: string;
  start?: string;
  end?: string;
}

export interface ParsedFiling {
  text: string;
  facts: RawFact[];
  contexts: Map<string, XbrlContext>;
  units: Map<string, string>;
}

const BLOCK = new Set(['p', 'div', 'br', 'tr', 'li', 'ul', 'ol', 'table', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'section', 'article', 'hr', 'pre', 'blockquote', 'title', 'center', 'dt', 'dd']);
const CELL = new Set(['td', 'th']);
const INVISIBLE = new Set(['script', 'style', 'head', 'ix:header']);

interface OpenFact {
  fact: RawFact;
  depth: number;
}

export function parseFilingHtml(html: string): ParsedFiling {
  const pieces: string[] = [];
  const facts: RawFact[] = [];
  const contexts = new Map<string, XbrlContext>();
  const units = new Map<string, string>();
  const stack: string[] = [];
  const openFacts: OpenFact[] = [];
  let invisibleDepth = 0;
  let hiddenDepth = 0;
  let excludeDepth = 0;
  let context: XbrlContext | undefined;
  let unit: { id: string; measures: string[]; divide: boolean; numerator: string[]; denominator: string[]; part?: 'num' | 'den' } | undefined;
  let capture = '';

  const parser = new Parser(
    {
      onopentag(name, attributes) {
        stack.push(name);
        if (INVISIBLE.has(name)) invisibleDepth++;
        if (name === 'ix:hidden') hiddenDepth++;
        if (name === 'ix:exclude') excludeDepth++;
        if (BLOCK.has(name) && invisibleDepth === 0) pieces.push('\n');
        if (CELL.has(name) && invisibleDepth === 0) pieces.push(' ');
        if (name === 'ix:nonfraction' || name === 'ix:nonnumeric') {
          const fact: RawFact = { kind: name === 'ix:nonfraction' ? 'nonFraction' : 'nonNumeric', attributes: { ...attributes }, text: '', hidden: hiddenDepth > 0 };
          facts.push(fact);
          openFacts.push({ fact, depth: stack.length });
        }
        if (name === 'xbrli:context') context = { id: attributes['id'] ?? '' };
        if (name === 'xbrli:unit') unit = { id: attributes['id'] ?? '', measures: [], divide: false, numerator: [], denominator: [] };
        if (name === 'xbrli:divide' && unit) unit.divide = true;
        if (name === 'xbrli:unitnumerator' && unit) unit.part = 'num';
        if (name === 'xbrli:unitdenominator' && unit) unit.part = 'den';
        capture = '';
      },
      ontext(text) {
        capture += text;
        if (excludeDepth === 0) for (const open of openFacts) open.fact.text += text;
        if (invisibleDepth === 0) pieces.push(text);
      },
      onclosetag(name) {
        const value = capture.trim();
        if (context) {
          if (name === 'xbrli:identifier') context.entity = value;
          if (name === 'xbrli:instant') context.instant = value;
          if (name === 'xbrli:startdate') context.start = value;
          if (name === 'xbrli:enddate') context.end = value;
          if (name === 'xbrli:context') {
            contexts.set(context.id, context);
            context = undefined;
          }
        }
        if (unit) {
          if (name === 'xbrli:measure') (unit.part === 'num' ? unit.numerator : unit.part === 'den' ? unit.denominator : unit.measures).push(value);
          if (name === 'xbrli:unit') {
            units.set(unit.id, unit.divide ? `${unit.numerator.join('*')}/${unit.denominator.join('*')}` : unit.measures.join('*'));
            unit = undefined;
          }
        }
        while (openFacts.length > 0 && openFacts[openFacts.length - 1]!.depth === stack.length) openFacts.pop();
        if (INVISIBLE.has(name)) invisibleDepth--;
        if (name === 'ix:hidden') hiddenDepth--;
        if (name === 'ix:exclude') excludeDepth--;
        if (BLOCK.has(name) && invisibleDepth === 0) pieces.push('\n');
        stack.pop();
        capture = '';
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  return { text: tidy(pieces.join('')), facts, contexts, units };
}

/** Non-breaking spaces to spaces, runs of spaces collapsed, at most one blank line in a row. */
export function tidy(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u00a0\u2007\u202f\t ]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
