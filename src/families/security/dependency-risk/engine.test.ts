import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../signing/rfc8785.ts';
import { shippedAdvisories } from './data.ts';
import { assessDependencyRisk } from './engine.ts';
import type { DependencyRiskInput } from './input.ts';
import { parsePackageUrl } from './purl.ts';

const ADVISORIES = shippedAdvisories();

interface DependencyOut {
  ecosystem: string;
  name: string;
  version: string | null;
  status: string;
  reason?: string;
  occurrences: number;
  advisories?: Array<{ id: string; fixed_version: string | null; last_affected_version?: string }>;
}
interface AdvisoryOut {
  id: string;
  aliases: string[];
  summary: string;
  severity: Array<{ type: string; vector: string }>;
  severity_label: string | null;
}
interface RecordOut {
  outcome: string;
  summary: Record<string, number>;
  dependencies: DependencyOut[];
  advisories: AdvisoryOut[];
  coverage: Record<string, unknown>;
  ruleset: { data: Array<{ sha256: string; data_date: string }> };
  dependency_set_sha256: string;
}

const run = (input: DependencyRiskInput, now = 1_767_225_600) => assessDependencyRisk(input, now, ADVISORIES) as unknown as RecordOut & JsonObject;
const find = (record: RecordOut, name: string, version: string | null) => record.dependencies.find((d) => d.name === name && d.version === version)!;
const described = (record: RecordOut, id: string) => record.advisories.find((a) => a.id === id)!;

/** Per ecosystem: a vulnerable version, the same package at its fixed version, an uncovered package, an unparseable version. */
const CASES = [
  {
    ecosystem: 'npm',
    vulnerable: ['pkg:npm/lodash@4.17.20', 'lodash', '4.17.20', 'GHSA-35jh-r3h4-6jhm', 'CVE-2021-23337', '4.17.21'],
    fixed: ['pkg:npm/lodash@4.17.21', 'lodash', '4.17.21'],
    uncovered: ['pkg:npm/left-pad@1.3.0', 'left-pad', '1.3.0'],
    unparseable: ['pkg:npm/lodash@github%3Alodash%2Flodash%23main', 'lodash', 'github:lodash/lodash#main'],
  },
  {
    ecosystem: 'PyPI',
    vulnerable: ['pkg:pypi/django@4.2.14', 'django', '4.2.14', 'PYSEC-2024-70', 'CVE-2024-42005', '4.2.15'],
    fixed: ['pkg:pypi/django@4.2.16', 'django', '4.2.16'],
    uncovered: ['pkg:pypi/flask-cors@4.0.0', 'flask-cors', '4.0.0'],
    unparseable: ['pkg:pypi/django@latest-stable', 'django', 'latest-stable'],
  },
  {
    ecosystem: 'Maven',
    vulnerable: ['pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1', 'org.apache.logging.log4j:log4j-core', '2.14.1', 'GHSA-jfh8-c2jp-5v3q', 'CVE-2021-44228', '2.15.0'],
    fixed: ['pkg:maven/org.apache.logging.log4j/log4j-core@2.17.0', 'org.apache.logging.log4j:log4j-core', '2.17.0'],
    uncovered: ['pkg:maven/com.google.guava/guava@33.0.0-jre', 'com.google.guava:guava', '33.0.0-jre'],
    unparseable: ['pkg:maven/org.apache.logging.log4j/log4j-core@%24%7Blog4j.version%7D', 'org.apache.logging.log4j:log4j-core', '${log4j.version}'],
  },
  {
    ecosystem: 'Go',
    vulnerable: ['pkg:golang/github.com/gin-gonic/gin@v1.9.0', 'github.com/gin-gonic/gin', 'v1.9.0', 'GO-2023-1737', 'CVE-2023-29401', '1.9.1'],
    fixed: ['pkg:golang/github.com/gin-gonic/gin@v1.10.0', 'github.com/gin-gonic/gin', 'v1.10.0'],
    uncovered: ['pkg:golang/github.com/spf13/cobra@v1.8.0', 'github.com/spf13/cobra', 'v1.8.0'],
    unparseable: ['pkg:golang/github.com/gin-gonic/gin@master', 'github.com/gin-gonic/gin', 'master'],
  },
] as const;

describe.each(CASES)('$ecosystem', ({ vulnerable, fixed, uncovered, unparseable }) => {
  const record = run({ purls: [vulnerable[0], fixed[0], uncovered[0], unparseable[0]] });

  it('a vulnerable version is VULNERABLE with the advisory id, its CVE alias and the first fixed version', () => {
    const dep = find(record, vulnerable[1], vulnerable[2]);
    expect(dep.status).toBe('VULNERABLE');
    expect(dep.advisories!.find((a) => a.id === vulnerable[3])!.fixed_version).toBe(vulnerable[5]);
    expect(described(record, vulnerable[3]).aliases).toContain(vulnerable[4]);
  });
  it('the same package at its fixed version is NOT-AFFECTED', () => {
    expect(find(record, fixed[1], fixed[2])).toMatchObject({ status: 'NOT-AFFECTED' });
    expect(find(record, fixed[1], fixed[2]).advisories).toBeUndefined();
  });
  it('a package outside the set is UNKNOWN, never safe', () => {
    expect(find(record, uncovered[1], uncovered[2])).toMatchObject({ status: 'UNKNOWN', reason: 'PACKAGE-NOT-COVERED' });
  });
  it('an unparseable version of a covered package is UNKNOWN, never guessed', () => {
    expect(find(record, unparseable[1], unparseable[2])).toMatchObject({ status: 'UNKNOWN', reason: 'VERSION-UNPARSEABLE' });
  });
  it('the summary counts each status', () => {
    expect(record.summary).toMatchObject({ dependencies: 4, vulnerable: 1, not_affected: 1, unknown: 2 });
    expect(record.outcome).toBe('VULNERABLE');
  });
});

describe('severity, ranges and Go versions', () => {
  it('carries the CVSS vector where the advisory has one', () => {
    const record = run({ purls: ['pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1'] });
    expect(record.dependencies[0]!.advisories!.map((a) => a.id)).toContain('GHSA-jfh8-c2jp-5v3q');
    expect(described(record, 'GHSA-jfh8-c2jp-5v3q').severity).toEqual([{ type: 'CVSS_V3', vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H' }]);
  });
  it('evaluates every range of an advisory: on the 2.12 backport line each fix is found in its own range', () => {
    const record = run({ purls: ['pkg:maven/org.apache.logging.log4j/log4j-core@2.12.1', 'pkg:maven/org.apache.logging.log4j/log4j-core@2.12.2', 'pkg:maven/org.apache.logging.log4j/log4j-core@2.12.3'] });
    expect(find(record, 'org.apache.logging.log4j:log4j-core', '2.12.1').advisories!.map((a) => [a.id, a.fixed_version])).toContainEqual(['GHSA-jfh8-c2jp-5v3q', '2.12.2']);
    expect(find(record, 'org.apache.logging.log4j:log4j-core', '2.12.2').advisories!.map((a) => [a.id, a.fixed_version])).toEqual([['GHSA-p6xc-xr62-6r2g', '2.12.3']]);
    expect(find(record, 'org.apache.logging.log4j:log4j-core', '2.12.3').status).toBe('NOT-AFFECTED');
  });
  it('reads Maven qualifiers in Maven order: 5.2.20.RELEASE is fixed, 5.2.19.RELEASE is not', () => {
    const record = run({ purls: ['pkg:maven/org.springframework/spring-webmvc@5.2.19.RELEASE', 'pkg:maven/org.springframework/spring-webmvc@5.2.20.RELEASE'] });
    expect(find(record, 'org.springframework:spring-webmvc', '5.2.19.RELEASE').status).toBe('VULNERABLE');
    expect(find(record, 'org.springframework:spring-webmvc', '5.2.20.RELEASE').status).toBe('NOT-AFFECTED');
  });
  it('orders npm prereleases: 5.0.0-beta.1 is inside both 5.0.0 prerelease ranges, beta.3 only in the one fixed at 5.0.0', () => {
    const record = run({ purls: ['pkg:npm/express@5.0.0-beta.1', 'pkg:npm/express@5.0.0-beta.3', 'pkg:npm/express@5.0.0'] });
    expect(find(record, 'express', '5.0.0-beta.1').advisories!.map((a) => a.id).sort()).toEqual(['GHSA-qw6h-vgh9-j6wx', 'GHSA-rv95-896h-c2vc']);
    expect(find(record, 'express', '5.0.0-beta.3').advisories!.map((a) => [a.id, a.fixed_version])).toEqual([['GHSA-qw6h-vgh9-j6wx', '5.0.0']]);
    expect(find(record, 'express', '5.0.0').status).toBe('NOT-AFFECTED');
  });
  it('carries a CVSS 4.0 vector beside the 3.1 one, and no vector where the advisory has none', () => {
    const record = run({ purls: ['pkg:npm/express@4.19.2', 'pkg:npm/micromatch@4.0.5'] });
    expect(described(record, find(record, 'express', '4.19.2').advisories![0]!.id).severity.map((s) => s.type)).toEqual(['CVSS_V3', 'CVSS_V4']);
    expect(find(record, 'micromatch', '4.0.5').advisories![0]).toEqual({ id: 'GHSA-952p-6rrq-rcjv', fixed_version: '4.0.8' });
    expect(described(record, 'GHSA-952p-6rrq-rcjv').severity).toEqual([]);
  });
  it('reads +incompatible Go versions and pseudo-versions', () => {
    const record = run({ purls: ['pkg:golang/github.com/docker/docker@v20.10.0%2Bincompatible', 'pkg:golang/golang.org/x/text@v0.3.7', 'pkg:golang/github.com/minio/minio@v0.0.0-20250403145552-8c70975283f9', 'pkg:golang/github.com/minio/minio@v0.0.0-20250101000000-000000000000'] });
    expect(find(record, 'github.com/docker/docker', 'v20.10.0+incompatible').advisories!.map((a) => a.fixed_version)).toContain('20.10.11+incompatible');
    expect(find(record, 'golang.org/x/text', 'v0.3.7').advisories!.map((a) => [a.id, a.fixed_version])).toContainEqual(['GO-2022-1059', '0.3.8']);
    // GO-2025-3594 is fixed at the pseudo-version 0.0.0-20250403145552-8c70975283f9: an earlier pseudo-version is affected, the fix itself is not.
    expect(find(record, 'github.com/minio/minio', 'v0.0.0-20250101000000-000000000000').advisories!.map((a) => a.id)).toContain('GO-2025-3594');
    expect(find(record, 'github.com/minio/minio', 'v0.0.0-20250403145552-8c70975283f9').advisories!.map((a) => a.id)).not.toContain('GO-2025-3594');
  });
  it('normalises PyPI names (PEP 503): Django and django are one package', () => {
    expect(run({ purls: ['pkg:pypi/Django@4.2.14'] }).dependencies[0]).toMatchObject({ status: 'VULNERABLE' });
  });
});

describe('documents', () => {
  it('reads an npm lockfile v3: nested installs, aliases, duplicates counted, workspace links and folders', () => {
    const record = run({
      package_lock: {
        lockfileVersion: 3,
        packages: {
          '': { name: 'app', version: '1.0.0' },
          'node_modules/lodash': { version: '4.17.21' },
          'node_modules/a/node_modules/lodash': { version: '4.17.20' },
          'node_modules/b/node_modules/lodash': { version: '4.17.20' },
          'node_modules/old-minimist': { name: 'minimist', version: '1.2.5' },
          'node_modules/@company/lib': { link: true, resolved: 'packages/lib' },
          'packages/lib': { name: '@company/lib', version: '0.1.0' },
        },
      },
    });
    expect(find(record, 'lodash', '4.17.20')).toMatchObject({ status: 'VULNERABLE', occurrences: 2 });
    expect(find(record, 'lodash', '4.17.21')).toMatchObject({ status: 'NOT-AFFECTED', occurrences: 1 });
    expect(find(record, 'minimist', '1.2.5').advisories!.map((a) => [a.id, a.fixed_version])).toEqual([['GHSA-xvch-5gv4-984h', '1.2.6']]);
    expect(find(record, '@company/lib', '0.1.0')).toMatchObject({ status: 'UNKNOWN', reason: 'NOT-A-REGISTRY-PACKAGE' });
    expect(record.dependencies).toHaveLength(4);
    expect(record).toMatchObject({ input_format: 'npm-package-lock', outcome: 'VULNERABLE' });
  });

  it('reads a CycloneDX 1.6 SBOM by purl, nested components included; a component without a purl is UNKNOWN', () => {
    const record = run({
      cyclonedx: {
        bomFormat: 'CycloneDX',
        specVersion: '1.6',
        components: [
          { type: 'library', name: 'commons-text', version: '1.9', purl: 'pkg:maven/org.apache.commons/commons-text@1.9', components: [{ type: 'library', name: 'snakeyaml', version: '1.33', purl: 'pkg:maven/org.yaml/snakeyaml@1.33' }] },
          { type: 'library', name: 'vendored-thing', version: '2.0' },
          { type: 'library', name: 'serde', version: '1.0.200', purl: 'pkg:cargo/serde@1.0.200' },
        ],
      },
    });
    expect(find(record, 'org.apache.commons:commons-text', '1.9').advisories!.map((a) => a.id)).toEqual(['GHSA-599f-7c49-w659']);
    expect(find(record, 'org.yaml:snakeyaml', '1.33').advisories!.map((a) => [a.id, a.fixed_version])).toEqual([['GHSA-mjmj-j48q-9wg2', '2.0']]);
    expect(find(record, 'vendored-thing', '2.0')).toMatchObject({ status: 'UNKNOWN', reason: 'NO-PURL' });
    expect(find(record, 'serde', '1.0.200')).toMatchObject({ status: 'UNKNOWN', reason: 'ECOSYSTEM-NOT-COVERED', ecosystem: 'cargo' });
  });

  it('a purl without a version, or that is not a purl, is UNKNOWN with its reason', () => {
    const record = run({ purls: ['pkg:npm/lodash', 'npm:lodash@1.0.0'] });
    expect(find(record, 'lodash', null)).toMatchObject({ status: 'UNKNOWN', reason: 'VERSION-NOT-PROVIDED' });
    expect(find(record, 'npm:lodash@1.0.0', null)).toMatchObject({ status: 'UNKNOWN', reason: 'PURL-UNPARSEABLE' });
    expect(record.outcome).toBe('UNKNOWN');
  });

  it('all covered and outside every range: NOT-AFFECTED; nothing found: INSUFFICIENT-DATA', () => {
    expect(run({ purls: ['pkg:npm/lodash@4.17.21', 'pkg:pypi/django@5.1.1'] }).outcome).toBe('NOT-AFFECTED');
    const empty = run({ package_lock: { lockfileVersion: 2, packages: { '': { name: 'x' } } } });
    expect(empty).toMatchObject({ outcome: 'INSUFFICIENT-DATA', summary: { dependencies: 0 }, insufficient: [{ field: 'npm-package-lock', status: 'INSUFFICIENT-DATA' }] });
  });
});

describe('the record', () => {
  it('names the data set (version, SHA-256, data date) and its coverage; marks the input caller-supplied', () => {
    const record = run({ purls: ['pkg:npm/lodash@4.17.21'] });
    expect(record.ruleset.data[0]).toMatchObject({ sha256: ADVISORIES.sha256, data_date: ADVISORIES.dataDate });
    expect(record.coverage).toMatchObject({ advisories: ADVISORIES.advisoryCount, sha256: ADVISORIES.sha256 });
    expect(record).toMatchObject({ kind: 'dependency-risk', evidence_source: 'caller-supplied' });
  });
  it('is deterministic: the same dependencies in any order give the same record but for the stamp', () => {
    const a = run({ purls: ['pkg:npm/lodash@4.17.20', 'pkg:pypi/django@4.2.14'] }, 1);
    const b = run({ purls: ['pkg:pypi/django@4.2.14', 'pkg:npm/lodash@4.17.20'] }, 2);
    expect({ ...a, assessedAt: 0 }).toEqual({ ...b, assessedAt: 0 });
  });
});

describe('advisories listed once', () => {
  it('5,000 versions of one module, each affected by the same advisories: each advisory is described once and referenced by id with the dependency\'s own fix', () => {
    const purls = Array.from({ length: 5_000 }, (_, i) => `pkg:golang/golang.org/x/net@v0.0.${i}`);
    const record = run({ purls });
    expect(record.ruleset).toMatchObject({ version: '2' });
    const ids = record.dependencies[0]!.advisories!.map((a) => a.id);
    expect(ids.length).toBeGreaterThanOrEqual(8);
    expect(record.advisories.map((a) => a.id)).toEqual([...new Set(record.dependencies.flatMap((d) => (d.advisories ?? []).map((a) => a.id)))].sort());
    expect(record.summary['advisories_matched']).toBe(record.advisories.length);
    for (const dep of record.dependencies) for (const reference of dep.advisories ?? []) expect(Object.keys(reference).sort()).toEqual(reference.last_affected_version ? ['fixed_version', 'id', 'last_affected_version'] : ['fixed_version', 'id']);
    // Version 1 carried each advisory's aliases, summary and vectors with each dependency: 8.7 MB.
    const summaries = record.advisories.map((a) => a.summary);
    expect(JSON.stringify(record.dependencies)).not.toContain(summaries[0]);
    expect(JSON.stringify(record).length).toBeLessThan(3_000_000);
  });
});

describe('package URLs', () => {
  it('reads type, namespace, name and version, percent-decoded; qualifiers and subpath are dropped', () => {
    expect(parsePackageUrl('pkg:npm/%40angular/core@16.0.0?repository_url=x#sub')).toEqual({ type: 'npm', namespace: '@angular', name: 'core', version: '16.0.0' });
    expect(parsePackageUrl('pkg:golang/github.com/gin-gonic/gin@v1.9.0')).toEqual({ type: 'golang', namespace: 'github.com/gin-gonic', name: 'gin', version: 'v1.9.0' });
    expect(parsePackageUrl('pkg:pypi/django')).toEqual({ type: 'pypi', namespace: undefined, name: 'django', version: undefined });
    expect(parsePackageUrl('pkg:npm')).toBeUndefined();
    expect(parsePackageUrl('pkg:npm/%E0%A4%A@1')).toBeUndefined();
  });
});
