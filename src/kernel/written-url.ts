/**
 * A URL written out in full, as a reader follows it: its scheme, two slashes, a host, and no
 * white space, control or invisible format character anywhere (a zero-width space in a host).
 * The URL parser alone is too lenient for a URL that is sealed as written: it takes `https:/x`,
 * drops a trailing newline (`https://x\n`) and keeps a zero-width space in the host.
 */
const WRITTEN_URL = /^[a-z][a-z0-9+.-]*:\/\/[^\s\p{Cc}\p{Cf}]+$/iu;

/** Whether `text` is such a URL with one of `protocols` (as the URL parser names them: `https:`). */
export function isWrittenOutUrl(text: string, protocols: readonly string[]): boolean {
  if (!WRITTEN_URL.test(text)) return false;
  try {
    const url = new URL(text);
    return protocols.includes(url.protocol) && url.hostname.length > 0;
  } catch {
    return false;
  }
}
