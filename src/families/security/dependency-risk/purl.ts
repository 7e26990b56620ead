/**
 * Package URLs (purl specification, github.com/package-url/purl-spec):
 * pkg:type/namespace/name@version?qualifiers#subpath, percent-encoded segments.
 * Only what the matching needs is read: type, namespace, name and version.
 */
export interface PackageUrl {
  type: string;
  namespace: string | undefined;
  name: string;
  version: string | undefined;
}

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

export function parsePackageUrl(text: string): PackageUrl | undefined {
  if (!/^pkg:/i.test(text)) return undefined;
  let rest = text.slice(4).replace(/^\/+/, '');
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const question = rest.indexOf('?');
  if (question >= 0) rest = rest.slice(0, question);
  const slash = rest.indexOf('/');
  if (slash <= 0) return undefined;
  const type = rest.slice(0, slash).toLowerCase();
  if (!/^[a-z.+-][a-z0-9.+-]*$/.test(type)) return undefined;
  let path = rest.slice(slash + 1).replace(/\/+$/, '');
  let version: string | undefined;
  const at = path.lastIndexOf('@');
  if (at >= 0) {
    version = decode(path.slice(at + 1));
    if (version === undefined) return undefined;
    path = path.slice(0, at);
  }
  const segments = path.split('/').filter((s) => s !== '').map(decode);
  if (segments.length === 0 || segments.some((s) => s === undefined || s === '')) return undefined;
  const parts = segments as string[];
  const name = parts[parts.length - 1]!;
  const namespace = parts.length > 1 ? parts.slice(0, -1).join('/') : undefined;
  return { type, namespace, name, version: version === '' ? undefined : version };
}
