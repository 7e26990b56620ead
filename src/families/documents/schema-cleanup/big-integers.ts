/**
 * Quotes every JSON integer literal beyond 2^53 in a valid JSON text, so that JSON.parse keeps
 * its digits as a string instead of rounding it. A scan of the text that knows where strings
 * are: no number inside a string is touched.
 */
export function quoteUnsafeIntegers(json: string): { text: string; quoted: string[] } {
  const quoted: string[] = [];
  let out = '';
  let i = 0;
  while (i < json.length) {
    const ch = json[i]!;
    if (ch === '"') {
      const end = stringEnd(json, i);
      out += json.slice(i, end);
      i = end;
      continue;
    }
    if (ch === '-' || (ch >= '0' && ch <= '9')) {
      let end = i + 1;
      while (end < json.length && /[0-9eE.+-]/.test(json[end]!)) end++;
      const literal = json.slice(i, end);
      if (/^-?\d+$/.test(literal) && !Number.isSafeInteger(Number(literal))) {
        quoted.push(literal);
        out += `"${literal}"`;
      } else out += literal;
      i = end;
      continue;
    }
    out += ch;
    i++;
  }
  return { text: out, quoted };
}

function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === '\\') i += 2;
    else if (text[i] === '"') return i + 1;
    else i++;
  }
  return text.length;
}
