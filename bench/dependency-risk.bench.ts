import { performance } from 'node:perf_hooks';
import { shippedAdvisories } from '../src/families/security/dependency-risk/data.ts';
import { assessDependencyRisk } from '../src/families/security/dependency-risk/engine.ts';
import { lockfileOf } from './support/lockfile.ts';
import { canonicalSha256 } from '../src/signing/hash.ts';

/**
 * The dependency-risk engine over a 2,000-package npm lockfile: records per second, with the
 * record's canonical SHA-256 (what the seal hashes) included. A fifth of the packages are in the
 * curated set (a vulnerable and a fixed version of each), the rest are not (UNKNOWN), as in a real
 * tree where most packages have no advisory.
 */
const PACKAGES = 2_000;
const SECONDS = 2;

export default async function dependencyRiskBench(): Promise<void> {
  const ADVISORIES = shippedAdvisories();
  const input = lockfileOf(PACKAGES);
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
