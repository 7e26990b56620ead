import type { JsonValue } from '../../../signing/rfc8785.ts';
import { ECOSYSTEMS, type Ecosystem } from './ecosystems.ts';
import type { CycloneDx, PackageLock } from './input.ts';
import { parsePackageUrl } from './purl.ts';

/** One dependency as the input names it, before any matching. */
export interface SuppliedDependency {
  /** An OSV ecosystem, or the purl type of an ecosystem the set does not cover. */
  ecosystem: Ecosystem | string;
  name: string;
  version: string | undefined;
  purl?: string;
  /** Why it cannot be matched, whatever the advisories say. */
  unmatchable?: 'PURL-UNPARSEABLE' | 'NO-PURL' | 'NOT-A-REGISTRY-PACKAGE';
}

const PURL_TYPE_TO_ECOSYSTEM: Record<string, Ecosystem> = { npm: 'npm', pypi: 'PyPI', maven: 'Maven', golang: 'Go' };

export function isCoveredEcosystem(ecosystem: string): ecosystem is Ecosystem {
  return (ECOSYSTEMS as readonly string[]).includes(ecosystem);
}

export function fromPackageUrl(text: string): SuppliedDependency {
  const purl = parsePackageUrl(text);
  if (!purl) return { ecosystem: 'unknown', name: text, version: undefined, purl: text, unmatchable: 'PURL-UNPARSEABLE' };
  const ecosystem = PURL_TYPE_TO_ECOSYSTEM[purl.type] ?? purl.type;
  const name =
    ecosystem === 'Maven' ? (purl.namespace ? `${purl.namespace}:${purl.name}` : purl.name) : purl.namespace ? `${purl.namespace}/${purl.name}` : purl.name;
  return { ecosystem, name, version: purl.version, purl: text };
}

/** npm lockfile v2/v3: every install path under node_modules is one installed package. */
export function fromPackageLock(lock: PackageLock): SuppliedDependency[] {
  const out: SuppliedDependency[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.link === true) continue;
    const marker = path.lastIndexOf('node_modules/');
    if (marker < 0) {
      // A workspace or local folder: not installed from the registry, so no advisory can name it.
      out.push({ ecosystem: 'npm', name: entry.name ?? path, version: entry.version, unmatchable: 'NOT-A-REGISTRY-PACKAGE' });
      continue;
    }
    out.push({ ecosystem: 'npm', name: entry.name ?? path.slice(marker + 'node_modules/'.length), version: entry.version });
  }
  return out;
}

function isObject(value: JsonValue | undefined): value is { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** CycloneDX: each component (nested ones too) by its purl; a component without a purl cannot be placed in an ecosystem. */
export function fromCycloneDx(bom: CycloneDx): SuppliedDependency[] {
  const out: SuppliedDependency[] = [];
  const pending: JsonValue[] = [...((bom.components ?? []) as JsonValue[])];
  while (pending.length > 0) {
    const component = pending.pop();
    if (!isObject(component)) continue;
    if (Array.isArray(component.components)) for (const child of component.components) pending.push(child);
    const purl = typeof component.purl === 'string' ? component.purl : undefined;
    const name = typeof component.name === 'string' ? component.name : '(unnamed component)';
    const version = typeof component.version === 'string' ? component.version : undefined;
    if (purl) {
      const fromPurl = fromPackageUrl(purl);
      out.push(fromPurl.version === undefined && version !== undefined && !fromPurl.unmatchable ? { ...fromPurl, version } : fromPurl);
    } else {
      out.push({ ecosystem: 'unknown', name, version, unmatchable: 'NO-PURL' });
    }
  }
  return out;
}

/**
 * How many dependencies a document lists, as the readers above would read them (links and the
 * project itself aside), counted without reading any: the bound of one call applies to all three forms.
 */
export function listedDependencies(document: { package_lock?: PackageLock | undefined; cyclonedx?: CycloneDx | undefined; purls?: string[] | undefined }): number {
  if (document.package_lock) return Object.entries(document.package_lock.packages).filter(([path, entry]) => path !== '' && entry.link !== true).length;
  if (document.cyclonedx) {
    let count = 0;
    const pending: JsonValue[] = [...((document.cyclonedx.components ?? []) as JsonValue[])];
    while (pending.length > 0) {
      const component = pending.pop();
      if (!isObject(component)) continue;
      count++;
      if (Array.isArray(component.components)) for (const child of component.components) pending.push(child);
    }
    return count;
  }
  return document.purls?.length ?? 0;
}
