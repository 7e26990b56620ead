/**
 * JSON text assembled around a value's JSON text that was made elsewhere (a record's text made on
 * an engine thread): the large value is copied as bytes, only the small members around it are
 * serialised here. Each function gives exactly the UTF-8 of JSON.stringify of the object it
 * describes, or undefined where it cannot promise that (the caller then serialises the object).
 */

/** The UTF-8 of JSON.stringify(object), its member `key` written from `memberJson` (JSON.stringify(object[key]) made elsewhere). */
export function jsonWithMemberText(object: Readonly<Record<string, unknown>>, key: string, memberJson: Uint8Array): Buffer {
  const pieces: Uint8Array[] = [];
  let text = '{';
  let first = true;
  // Object.keys lists the members JSON.stringify writes, in its order.
  for (const name of Object.keys(object)) {
    const value = name === key ? undefined : JSON.stringify(object[name]);
    if (name !== key && value === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(name)}:`;
    first = false;
    if (value !== undefined) {
      text += value;
      continue;
    }
    pieces.push(Buffer.from(text, 'utf8'), memberJson);
    text = '';
  }
  pieces.push(Buffer.from(`${text}}`, 'utf8'));
  return Buffer.concat(pieces);
}

/**
 * The UTF-8 of JSON.stringify({ ...object, ...extra }) where `objectJson` is JSON.stringify(object)
 * and `objectKeys` its member names. Undefined when a member of `extra` would not simply follow
 * the object's: one of the same name (it would take that member's place) or an array index (JS
 * orders those first).
 */
export function jsonExtendingObjectText(objectJson: Uint8Array, objectKeys: readonly string[], extra: Readonly<Record<string, unknown>>): Buffer | undefined {
  const names = new Set(objectKeys);
  if (Object.keys(extra).some((name) => names.has(name) || isArrayIndex(name))) return undefined;
  const extraJson = JSON.stringify(extra);
  if (extraJson === '{}') return Buffer.from(objectJson);
  // `{...}` without its closing brace, then `,` and the extra members without their opening one.
  const open = objectJson.subarray(0, objectJson.length - 1);
  const empty = objectJson.length === 2;
  return Buffer.concat([open, Buffer.from(`${empty ? '' : ','}${extraJson.slice(1)}`, 'utf8')]);
}

/** A property name JS orders before all others: a canonical integer below 2^32 - 1. */
function isArrayIndex(name: string): boolean {
  return /^(?:0|[1-9]\d{0,9})$/.test(name) && Number(name) < 2 ** 32 - 1;
}
