/**
 * The first `units` UTF-16 code units of `text`, one fewer where the cut would split a surrogate
 * pair. A lone surrogate is not I-JSON (RFC 7493, 2.1): a record holding one is signed, but its
 * verify route refuses it, so a shortened caller text must end on a whole character.
 */
export function sliceWholeCharacters(text: string, units: number): string {
  if (text.length <= units) return text;
  const last = text.charCodeAt(units - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? units - 1 : units);
}

/** `text` shortened to at most `units` code units with an ellipsis, on a whole character. */
export function shortened(text: string, units: number, ellipsis = '...'): string {
  return text.length > units ? `${sliceWholeCharacters(text, units - ellipsis.length)}${ellipsis}` : text;
}
