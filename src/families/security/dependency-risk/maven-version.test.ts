import { describe, expect, it } from 'vitest';
import { compareMavenVersions, isMavenVersion } from './maven-version.ts';

// Each row: left < right, from the Version Order Specification of the Maven POM reference and
// the ordering tests of maven-artifact's ComparableVersion.
const ASCENDING: Array<[string, string]> = [
  ['1', '1.1'],
  ['1-snapshot', '1'],
  ['1', '1-sp'],
  ['1-foo2', '1-foo10'],
  ['1.foo', '1-1'],
  ['1-1', '1.1'],
  ['1-sp', '1-sp.1'],
  ['1-sp-1', '1-ga-1'],
  ['1.0-alpha1', '1.0-beta1'],
  ['1.0-beta1', '1.0-milestone1'],
  ['1.0-milestone1', '1.0-rc1'],
  ['1.0-rc1', '1.0-SNAPSHOT'],
  ['1.0-SNAPSHOT', '1.0'],
  ['1.0', '1.0-sp1'],
  ['1.0-sp1', '1.0-unknown'],
  ['2.12.6', '2.12.6.1'],
  ['2.13.2', '2.13.2.1'],
  ['5.2.19.RELEASE', '5.2.20.RELEASE'],
  ['5.2.20.RELEASE', '5.3.0'],
  ['2.14.1', '2.15.0'],
  ['1.9', '1.10.0'],
  ['1.33', '2.0'],
  ['2.0.0-M1', '2.0.0'],
];

const EQUAL: Array<[string, string]> = [
  ['1', '1.0'],
  ['1', '1.0.0'],
  ['1.ga', '1'],
  ['1-ga', '1'],
  ['1-0', '1'],
  ['1.0-final', '1'],
  ['5.2.20.RELEASE', '5.2.20'],
  ['1-a1', '1-alpha-1'],
  ['1.0-cr1', '1.0-rc1'],
  ['1.0-1', '1-1'],
  ['2.0', '2.0.0'],
];

describe('Maven version order', () => {
  it.each(ASCENDING)('%s < %s', (lower, higher) => {
    expect(compareMavenVersions(lower, higher)).toBe(-1);
    expect(compareMavenVersions(higher, lower)).toBe(1);
  });
  it.each(EQUAL)('%s = %s', (a, b) => {
    expect(compareMavenVersions(a, b)).toBe(0);
  });
  it('refuses ranges and unresolved properties as versions', () => {
    expect(isMavenVersion('2.15.0')).toBe(true);
    expect(isMavenVersion('[1.0,2.0)')).toBe(false);
    expect(isMavenVersion('${log4j.version}')).toBe(false);
    expect(isMavenVersion('')).toBe(false);
  });
});
