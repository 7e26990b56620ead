/**
 * `text` cut to at most `max` UTF-16 code units, `marker` included, never between the two
 * halves of a surrogate pair: a lone surrogate cannot be signed as RFC 8785 text, and the
 * verify routes refuse it (I-JSON), so a record carrying one could never be re-checked.
 */
export function clipText(text: string, max: number, marker = '...'): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - marker.length);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}${marker}`;
}
