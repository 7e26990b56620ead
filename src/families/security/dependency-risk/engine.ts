import type { JsonObject } from '../../../signing/rfc8785.ts';
import { canonicalSha256 } from '../../../signing/hash.ts';
import { packageKey, type AdvisorySet, type OsvAdvisory } from './advisory-set.ts';
import { fromCycloneDx, fromPackageLock, fromPackageUrl, isCoveredEcosystem, type SuppliedDependency } from './dependencies.ts';
import { ECOSYSTEMS, VERSION_RULES } from './ecosystems.ts';
import type { DependencyRiskInput } from './input.ts';
import { evaluateRange } from './osv-range.ts';

/**
 * Version 2 (2026-11-27): each matched advisory is described once, in the record's `advisories`;
 * a dependency lists the ids it is affected by with its own first fixed version. Version 1
 * repeated the advisory's aliases, summary and severity for every dependency it affected.
 */
export const DEPENDENCY_RISK_RULESET = { id: 'dependency-risk', version: '2' } as const;
export const DEPENDENCY_STATUSES = ['VULNERABLE', 'NOT-AFFECTED', 'UNKNOWN'] as const;
export const DEPENDENCY_RISK_OUTCOMES = ['VULNERABLE', 'NOT-AFFECTED', 'UNKNOWN', 'INSUFFICIENT-DATA'] as const;
export const UNKNOWN_REASONS = [
  'ECOSYSTEM-NOT-COVERED',
  'PACKAGE-NOT-COVERED',
  'VERSION-NOT-PROVIDED',
  'VERSION-UNPARSEABLE',
  'ADVISORY-RANGE-UNPARSEABLE',
  'PURL-UNPARSEABLE',
  'NO-PURL',
  'NOT-A-REGISTRY-PACKAGE',
] as const;

type UnknownReason = (typeof UNKNOWN_REASONS)[number];
type Status = (typeof DEPENDENCY_STATUSES)[number];

interface Finding {
  advisory: OsvAdvisory;
  fixed: string | null;
  lastAffected: string | null;
}

interface Assessment {
  status: Status;
  reason?: UnknownReason;
  detail?: string;
  findings?: Finding[];
}

function inputFormat(input: DependencyRiskInput): 'npm-package-lock' | 'cyclonedx' | 'purl-list' {
  if (input.package_lock) return 'npm-package-lock';
  if (input.cyclonedx) return 'cyclonedx';
  return 'purl-list';
}

function suppliedDependencies(input: DependencyRiskInput): SuppliedDependency[] {
  if (input.package_lock) return fromPackageLock(input.package_lock);
  if (input.cyclonedx) return fromCycloneDx(input.cyclonedx);
  return (input.purls ?? []).map(fromPackageUrl);
}

/** What an advisory says, the same for every dependency it affects: once in the record. */
function advisoryDescription(advisory: OsvAdvisory): JsonObject {
  return {
    id: advisory.id,
    aliases: advisory.aliases,
    summary: advisory.summary,
    severity: (advisory.severity ?? []).map((s) => ({ type: s.type, vector: s.score })),
    severity_label: advisory.database_specific?.severity ?? null,
  };
}

/** What the advisory means for one dependency: where its version's range ends. */
function advisoryReference({ advisory, fixed, lastAffected }: Finding): JsonObject {
  return { id: advisory.id, fixed_version: fixed, ...(lastAffected ? { last_affected_version: lastAffected } : {}) };
}

/** One dependency against the set: never a guess; anything that cannot be decided is UNKNOWN with its reason. */
function assess(dependency: SuppliedDependency, advisories: AdvisorySet): Assessment {
  if (dependency.unmatchable) return { status: 'UNKNOWN', reason: dependency.unmatchable };
  if (!isCoveredEcosystem(dependency.ecosystem)) return { status: 'UNKNOWN', reason: 'ECOSYSTEM-NOT-COVERED' };
  const entries = advisories.byPackage.get(packageKey(dependency.ecosystem, dependency.name));
  if (!entries) return { status: 'UNKNOWN', reason: 'PACKAGE-NOT-COVERED' };
  if (dependency.version === undefined) return { status: 'UNKNOWN', reason: 'VERSION-NOT-PROVIDED' };
  const rules = VERSION_RULES[dependency.ecosystem];
  const version = rules.parse(dependency.version);
  if (version === undefined) return { status: 'UNKNOWN', reason: 'VERSION-UNPARSEABLE', detail: `not a version under ${rules.rules}` };
  const findings: Finding[] = [];
  for (const { advisory, ranges } of entries) {
    for (const range of ranges) {
      const verdict = evaluateRange(version, range, rules);
      if (verdict.kind === 'unevaluable') return { status: 'UNKNOWN', reason: 'ADVISORY-RANGE-UNPARSEABLE', detail: `${advisory.id}: ${verdict.version}` };
      if (verdict.kind === 'affected') {
        findings.push({ advisory, fixed: verdict.fixed, lastAffected: verdict.lastAffected });
        break;
      }
    }
  }
  return findings.length > 0 ? { status: 'VULNERABLE', findings } : { status: 'NOT-AFFECTED' };
}

interface Grouped {
  dependency: SuppliedDependency;
  occurrences: number;
}

/** The same package and version installed at several paths is one dependency, counted. */
function group(dependencies: SuppliedDependency[]): Grouped[] {
  const byKey = new Map<string, Grouped>();
  for (const dependency of dependencies) {
    const key = JSON.stringify([dependency.ecosystem, dependency.name, dependency.version ?? null, dependency.unmatchable ?? null]);
    const seen = byKey.get(key);
    if (seen) seen.occurrences++;
    else byKey.set(key, { dependency, occurrences: 1 });
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => g);
}

function coverage(advisories: AdvisorySet): JsonObject {
  return {
    advisories: advisories.advisoryCount,
    packages: Object.values(advisories.packagesPerEcosystem).reduce((a, b) => a + b, 0),
    per_ecosystem: Object.fromEntries(ECOSYSTEMS.map((e) => [e, { packages: advisories.packagesPerEcosystem[e], advisories: advisories.advisoriesPerEcosystem[e] }])),
    data_date: advisories.dataDate,
    sha256: advisories.sha256,
  };
}

export function assessDependencyRisk(input: DependencyRiskInput, now: number, advisories: AdvisorySet): JsonObject {
  const grouped = group(suppliedDependencies(input));
  const matched = new Map<string, OsvAdvisory>();
  const dependencies = grouped.map(({ dependency, occurrences }) => {
    const assessment = assess(dependency, advisories);
    for (const { advisory } of assessment.findings ?? []) matched.set(advisory.id, advisory);
    return {
      ecosystem: dependency.ecosystem,
      name: dependency.name,
      version: dependency.version ?? null,
      ...(dependency.purl ? { purl: dependency.purl } : {}),
      occurrences,
      status: assessment.status,
      ...(assessment.reason ? { reason: assessment.reason } : {}),
      ...(assessment.detail ? { reason_detail: assessment.detail } : {}),
      ...(assessment.findings ? { advisories: assessment.findings.map(advisoryReference) } : {}),
    } satisfies JsonObject;
  });
  const count = (status: Status) => dependencies.filter((d) => d.status === status).length;
  const summary = {
    dependencies: dependencies.length,
    vulnerable: count('VULNERABLE'),
    not_affected: count('NOT-AFFECTED'),
    unknown: count('UNKNOWN'),
    advisories_matched: matched.size,
  };
  const outcome =
    dependencies.length === 0 ? 'INSUFFICIENT-DATA' : summary.vulnerable > 0 ? 'VULNERABLE' : summary.unknown > 0 ? 'UNKNOWN' : 'NOT-AFFECTED';
  return {
    kind: 'dependency-risk',
    ruleset: {
      ...DEPENDENCY_RISK_RULESET,
      version_rules: Object.fromEntries(ECOSYSTEMS.map((e) => [e, VERSION_RULES[e].rules])),
      data: [{ name: advisories.name, version: advisories.version, sha256: advisories.sha256, data_date: advisories.dataDate }],
    },
    input_format: inputFormat(input),
    // Content-derived: the same dependencies give the same id, whatever else the document holds.
    dependency_set_sha256: canonicalSha256(dependencies.map((d) => [d.ecosystem, d.name, d.version, d.occurrences])),
    outcome,
    ...(dependencies.length === 0 ? { insufficient: [{ field: inputFormat(input), status: 'INSUFFICIENT-DATA', reason: 'no dependency found in the supplied document' }] } : {}),
    summary,
    coverage: coverage(advisories),
    dependencies,
    advisories: [...matched.keys()].sort().map((id) => advisoryDescription(matched.get(id)!)),
    evidence_source: 'caller-supplied',
    not_performed: [
      { check: 'advisories outside the curated set', reason: `only the ${advisories.advisoryCount} advisories of ${advisories.name} ${advisories.version} are consulted; a package outside it is UNKNOWN, not safe` },
      { check: 'reachability of the vulnerable code', reason: 'no source code is analysed: a VULNERABLE package may not be exploitable in the caller\'s use' },
      { check: 'lockfile integrity and provenance', reason: 'integrity hashes and resolved URLs are not fetched or verified' },
      { check: 'dependency resolution', reason: 'the dependencies are taken as listed; nothing is resolved or installed' },
    ],
    assessedAt: now,
  };
}
