/**
 * Maven version ordering as the Maven POM reference specifies it ("Version Order
 * Specification", the order of maven-artifact's ComparableVersion), which is also the order OSV
 * uses for the Maven ecosystem:
 * - a version is split into tokens at '.', '-' and at every change between digits and letters
 *   (a change counts as '-'); an empty token is 0;
 * - trailing null tokens (0, "", "final", "ga", "release") are trimmed from the end and before
 *   every remaining '-';
 * - numbers compare numerically; qualifiers in the order
 *   alpha < beta < milestone < rc = cr < snapshot < "" = final = ga = release < sp < any other (alphabetically);
 *   a, b, m directly followed by a digit stand for alpha, beta, milestone;
 * - tokens of different kinds: .qualifier = -qualifier < -number < .number;
 * - the shorter version is padded with nulls of the other side's separator (0 after '.', "" after '-').
 */

type Separator = '.' | '-';
interface Token {
  separator: Separator;
  value: bigint | string;
}

const KNOWN_QUALIFIERS = ['alpha', 'beta', 'milestone', 'rc', 'snapshot', '', 'sp'] as const;
const QUALIFIER_ALIASES: Record<string, string> = { cr: 'rc', final: '', ga: '', release: '' };
const SHORT_QUALIFIERS: Record<string, string> = { a: 'alpha', b: 'beta', m: 'milestone' };

/** What a single Maven version may be written with; ranges ("[1.0,2.0)") and properties ("${x}") are not versions. */
const MAVEN_VERSION = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/;

export function isMavenVersion(text: string): boolean {
  return MAVEN_VERSION.test(text);
}

function isNull(token: Token): boolean {
  return token.value === 0n || token.value === '';
}

function tokenize(version: string): Token[] {
  const tokens: Token[] = [];
  const text = version.toLowerCase();
  let separator: Separator = '.';
  let current = '';
  const push = () => {
    tokens.push({ separator, value: current === '' ? 0n : /^\d+$/.test(current) ? BigInt(current) : current });
    current = '';
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '.' || char === '-') {
      push();
      separator = char;
      continue;
    }
    const isDigit = char >= '0' && char <= '9';
    if (current !== '' && /\d/.test(current[current.length - 1]!) !== isDigit) {
      // A letter directly followed by a digit: a1 -> alpha-1 (only single letters a, b, m).
      if (isDigit && Object.hasOwn(SHORT_QUALIFIERS, current)) current = SHORT_QUALIFIERS[current]!;
      push();
      separator = '-';
    }
    current += char;
  }
  push();
  return tokens.map((token) => (typeof token.value === 'string' ? { ...token, value: QUALIFIER_ALIASES[token.value] ?? token.value } : token));
}

/** Trims trailing nulls at the end and before each '-' (working from the end to the start). */
function trimNulls(tokens: Token[]): Token[] {
  const out = [...tokens];
  let end = out.length;
  while (end > 0) {
    let i = end - 1;
    while (i > 0 && isNull(out[i]!)) {
      out.splice(i, 1);
      i--;
    }
    // Move to the token before the previous '-' separator.
    let j = i;
    while (j > 0 && out[j]!.separator !== '-') j--;
    end = j;
  }
  return out;
}

function qualifierRank(value: string): [number, string] {
  const index = (KNOWN_QUALIFIERS as readonly string[]).indexOf(value);
  return index >= 0 ? [index, ''] : [KNOWN_QUALIFIERS.length, value];
}

/** .qualifier = -qualifier < -number < .number */
function kindRank(token: Token): number {
  if (typeof token.value === 'string') return 0;
  return token.separator === '-' ? 1 : 2;
}

function compareTokens(a: Token, b: Token): number {
  if (typeof a.value === 'bigint' && typeof b.value === 'bigint' && a.separator === b.separator) return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
  if (typeof a.value === 'string' && typeof b.value === 'string') {
    const [ra, sa] = qualifierRank(a.value);
    const [rb, sb] = qualifierRank(b.value);
    if (ra !== rb) return ra < rb ? -1 : 1;
    return sa < sb ? -1 : sa > sb ? 1 : 0;
  }
  return Math.sign(kindRank(a) - kindRank(b));
}

function paddingFor(other: Token): Token {
  return { separator: other.separator, value: other.separator === '.' ? 0n : '' };
}

export function compareMavenVersions(left: string, right: string): number {
  const a = trimNulls(tokenize(left));
  const b = trimNulls(tokenize(right));
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const ta = a[i] ?? paddingFor(b[i]!);
    const tb = b[i] ?? paddingFor(a[i]!);
    const order = compareTokens(ta, tb);
    if (order !== 0) return order;
  }
  return 0;
}
