import type { DependencyRiskInput } from '../../src/families/security/dependency-risk/input.ts';

/**
 * An npm lockfile (v3) of `packageCount` packages: a fifth of them in the curated advisory set (a
 * vulnerable and a fixed version of each), the rest not (UNKNOWN), as in a real tree where most
 * packages have no advisory.
 */
export function lockfileOf(packageCount: number): DependencyRiskInput {
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
  for (let i = 0; i < packageCount; i++) {
    const [name, version] = i % 5 === 0 ? covered[(i / 5) % covered.length]! : [`pkg-${i}`, `1.${i % 17}.${i % 7}`];
    packages[`node_modules/dep-${i}/node_modules/${name}`] = { version, resolved: `https://registry.npmjs.org/${name}/-/${name}-${version}.tgz`, integrity: `sha512-${'A'.repeat(86)}==` };
  }
  return { package_lock: { lockfileVersion: 3, packages: { '': { name: 'bench-app', version: '1.0.0' }, ...packages } } };
}
