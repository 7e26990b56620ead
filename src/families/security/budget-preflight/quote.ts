import type { JsonObject, JsonValue } from '../../../signing/rfc8785.ts';
import { decodeUtf8, describeIllFormed } from '../../../kernel/rfc3629.ts';
import { parseIJson } from '../../../kernel/rfc7493.ts';

/** The PAYMENT-REQUIRED header value, base64: at most this many characters. */
export const MAX_QUOTE_HEADER_CHARS = 16_384;
/** The decoded quote, as compact JSON: what a header of MAX_QUOTE_HEADER_CHARS decodes to at most. */
export const MAX_QUOTE_JSON_BYTES = (MAX_QUOTE_HEADER_CHARS / 4) * 3;
/**
 * An x402 quote offers a handful of ways to pay (a network and asset each); every entry is
 * checked and answered with its checks, about 1.2 KB an entry, so an unbounded list made answers
 * of megabytes from a quote of empty entries.
 */
export const MAX_ACCEPTS = 20;

/**
 * The x402 quote as an agent receives it: the PAYMENT-REQUIRED header (base64 of JSON) or the
 * decoded JSON. Version 2 (x402Version 2: resource {url}, accepts [{scheme, network (CAIP-2),
 * amount, asset, payTo, maxTimeoutSeconds, extra}]) and version 1 (x402Version 1: accepts
 * [{scheme, network name, maxAmountRequired, resource, asset, payTo, maxTimeoutSeconds, extra}]).
 * Every member is read defensively: a malformed entry is reported entry by entry, not refused.
 */
export interface QuoteEntry {
  index: number;
  scheme: JsonValue | undefined;
  network: JsonValue | undefined;
  amount: JsonValue | undefined;
  asset: JsonValue | undefined;
  payTo: JsonValue | undefined;
  maxTimeoutSeconds: JsonValue | undefined;
  extra: JsonValue | undefined;
  resourceUrl: JsonValue | undefined;
}

export type DecodedQuote =
  | { ok: true; encoding: 'base64-json' | 'json'; quote: JsonObject; version: 1 | 2 | null; entries: QuoteEntry[] }
  | { ok: false; encoding: 'base64-json' | 'json'; problem: string };

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function decodeHeader(text: string): { value: JsonValue } | { problem: string } {
  const trimmed = text.trim();
  const normalised = trimmed.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(normalised)) return { problem: 'the header value is not base64' };
  const decoded = decodeUtf8(Buffer.from(normalised, 'base64'));
  if (!decoded.ok) return { problem: `the header value is base64, but not of UTF-8 text (${describeIllFormed(decoded)})` };
  // As the service reads every JSON it is sent (RFC 7493): a string JSON.parse accepts with a
  // lone surrogate made a signed record that its own re-check refused.
  const parsed = parseIJson(decoded.text);
  if (parsed.ok) return { value: parsed.value as JsonValue };
  if (parsed.malformed) return { problem: 'the header value is base64 but not of JSON' };
  return { problem: `the header value is base64 of JSON that is not I-JSON (RFC 7493): ${parsed.path}: ${parsed.reason}` };
}

export function decodeQuote(quote: string | JsonObject): DecodedQuote {
  const encoding = typeof quote === 'string' ? 'base64-json' : 'json';
  let value: JsonValue;
  if (typeof quote === 'string') {
    const decoded = decodeHeader(quote);
    if ('problem' in decoded) return { ok: false, encoding, problem: decoded.problem };
    value = decoded.value;
  } else {
    value = quote;
  }
  if (!isObject(value)) return { ok: false, encoding, problem: 'the quote is not a JSON object' };
  if (!Array.isArray(value.accepts) || value.accepts.length === 0) return { ok: false, encoding, problem: 'the quote has no accepts entry' };
  const version = value.x402Version === 1 || value.x402Version === 2 ? value.x402Version : null;
  const quoteResource = isObject(value.resource) ? value.resource.url : undefined;
  const entries = value.accepts.map((raw, index): QuoteEntry => {
    const entry = isObject(raw) ? raw : {};
    return {
      index,
      scheme: entry.scheme,
      network: entry.network,
      // v2 names it amount; v1 maxAmountRequired.
      amount: version === 1 ? entry.maxAmountRequired : (entry.amount ?? entry.maxAmountRequired),
      asset: entry.asset,
      payTo: entry.payTo,
      maxTimeoutSeconds: entry.maxTimeoutSeconds,
      extra: entry.extra,
      // v2 names the resource once for the quote; v1 in each entry.
      resourceUrl: version === 1 ? entry.resource : (quoteResource ?? entry.resource),
    };
  });
  return { ok: true, encoding, quote: value, version, entries };
}

/**
 * A quote larger than one call checks: the JSON form over the size the header form may have, or
 * more accepts entries than MAX_ACCEPTS. A quote that cannot be decoded is not refused here: the
 * record says so (QUOTE-UNDECODABLE).
 */
export function quoteBeyondLimits(quote: string | JsonObject): { path: string; message: string } | undefined {
  if (typeof quote !== 'string') {
    const bytes = Buffer.byteLength(JSON.stringify(quote));
    if (bytes > MAX_QUOTE_JSON_BYTES) return { path: 'quote', message: `the quote is ${bytes} bytes of JSON: at most ${MAX_QUOTE_JSON_BYTES}, what a ${MAX_QUOTE_HEADER_CHARS}-character header holds` };
  }
  const decoded = decodeQuote(quote);
  if (decoded.ok && decoded.entries.length > MAX_ACCEPTS) return { path: 'quote.accepts', message: `the quote has ${decoded.entries.length} accepts entries: at most ${MAX_ACCEPTS} are checked` };
  return undefined;
}
