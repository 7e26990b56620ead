import { performance } from 'node:perf_hooks';
import { ADVISORIES } from '../src/families/security/dependency-risk/data.ts';
import { assessDependencyRisk } from '../src/families/security/dependency-risk/engine.ts';
import type { DependencyRiskInput } from '../src/families/security/dependency-risk/input.ts';
import { canonicalSha256 } from '../src/signing/hash.ts';

/**
 * The dependency-risk engine over a 2,000-package npm lockfile: records per second, with the
 * record's canonical SHA-256 (what the seal hashes) included. A fifth of the packages are in the
 * curated set (a vulnerable and a fixed version of each), the rest are not (UNKNOWN), as in a real
 * tree where most packages have no advisory.
 */
const PACKAGES = 2_000;
const SECONDS = 2;

function lockfile(): DependencyRiskInput {
  const covered: Array<[string, string]> = [
    ['lodash', '4.17.20'],
    ['lodash', '4.17.21'],
    ['minimist', '1.2.5'],
    ['minimist', '1.2.8'],
    ['express', '4.18.2'],
    ['express', '4.19.2'],
    ['semver', '7.5.1'],
    ['semver', '7.6.0'],
    ['braces', '3.0.2'],
    ['axios', '0.21.4'],
  ];
  const packages: Record<string, { version: string; resolved: string; integrity: string }> = {};
  for (let i = 0; i < PACKAGES; i++) {
    const [name, version] = i % 5 === 0 ? covered[(i / 5) % covered.length]! : [`pkg-${i}`, `1.${i % 17}.${i % 7}`];
    packages[`node_modules/dep-${i}/node_modules/${name}`] = { version, resolved: `https://registry.npmjs.org/${name}/-/${name}-${version}.tgz`, integrity: `sha512-${'A'.repeat(86)}==` };
  }
  return { package_lock: { lockfileVersion: 3, packages: { '': { name: 'bench-app', version: '1.0.0' }, ...packages } } };
}

export default async function dependencyRiskBench(): Promise<void> {
  const input = lockfile();
  // Warm up the JIT before measuring.
  for (let i = 0; i < 20; i++) canonicalSha256(assessDependencyRisk(input, 1_767_225_600, ADVISORIES));
  let runs = 0;
  const start = performance.now();
  while (performance.now() - start < SECONDS * 1000) {
    canonicalSha256(assessDependencyRisk(input, 1_767_225_600, ADVISORIES));
    runs++;
  }
  const seconds = (performance.now() - start) / 1000;
  const record = assessDependencyRisk(input, 1_767_225_600, ADVISORIES) as { summary: Record<string, number> };
  console.log(`dependency-risk engine, ${PACKAGES}-package lockfile (${JSON.stringify(record.summary)}), ${ADVISORIES.advisoryCount} advisories:`);
  console.log(`  ${(runs / seconds).toFixed(1)} records/s (${((seconds / runs) * 1000).toFixed(2)} ms per record, canonical SHA-256 included; ${runs} runs in ${seconds.toFixed(1)} s)`);
}
