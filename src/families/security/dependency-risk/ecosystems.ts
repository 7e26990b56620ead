import { createRequire } from 'node:module';
import type * as Pep440 from '@renovatebot/pep440';
import type * as SemVer from 'semver';
import { once } from '../../../kernel/once.ts';
import { compareMavenVersions, isMavenVersion } from './maven-version.ts';

// The version libraries load at the first version compared (on the engine thread): the catalogue
// entry and the free precheck, loaded at every start, only list ecosystems and packages.
const requireHere = createRequire(import.meta.url);
const semver = once(() => requireHere('semver') as typeof SemVer);
const pep440 = once(() => requireHere('@renovatebot/pep440') as typeof Pep440);

/** The four ecosystems of the curated set, spelled as OSV spells them. */
export const ECOSYSTEMS = ['npm', 'PyPI', 'Maven', 'Go'] as const;
export type Ecosystem = (typeof ECOSYSTEMS)[number];

export interface VersionRules {
  /** The rule's name as the record cites it. */
  rules: string;
  /** The version in the form the comparator takes, or undefined when it is not a version of this ecosystem. */
  parse(version: string): string | undefined;
  /** Orders two parsed versions: negative, zero or positive. */
  compare(a: string, b: string): number;
}

/** npm: Semantic Versioning 2.0.0 as the `semver` package (npm's own) reads it, strictly. */
const npmRules: VersionRules = {
  rules: 'npm semver (SemVer 2.0.0, node-semver strict parse)',
  parse: (version) => semver().valid(version) ?? undefined,
  compare: (a, b) => semver().compare(a, b),
};

/** PyPI: PEP 440 (normalised forms such as 1.0-post1 accepted, as pip accepts them). */
const pypiRules: VersionRules = {
  rules: 'PEP 440',
  parse: (version) => (pep440().valid(version) ? version : undefined),
  compare: (a, b) => pep440().compare(a, b),
};

const mavenRules: VersionRules = {
  rules: 'Maven version order (POM reference, ComparableVersion)',
  parse: (version) => (isMavenVersion(version) ? version : undefined),
  compare: compareMavenVersions,
};

/**
 * Go: module versions are semantic versions with a leading v (v1.2.3, v0.0.0-20220906165146-f3363e06e74c
 * pseudo-versions, v2.0.0+incompatible). OSV writes them without the v; +incompatible is build
 * metadata and does not change the order. Go accepts no shorthand (v1.2) in go.mod or go.sum.
 */
const goRules: VersionRules = {
  rules: 'Go module semver (leading v, pseudo-versions, +incompatible)',
  parse(version) {
    const bare = version.startsWith('v') ? version.slice(1) : version;
    const parsed = semver().parse(bare);
    if (!parsed) return undefined;
    const build = parsed.build.join('.');
    if (build !== '' && build !== 'incompatible') return undefined;
    return parsed.version;
  },
  compare: (a, b) => semver().compare(a, b),
};

export const VERSION_RULES: Record<Ecosystem, VersionRules> = { npm: npmRules, PyPI: pypiRules, Maven: mavenRules, Go: goRules };

/** Package names as each ecosystem compares them: PyPI names normalised per PEP 503; the others exact. */
export function normalisePackageName(ecosystem: Ecosystem, name: string): string {
  return ecosystem === 'PyPI' ? name.toLowerCase().replace(/[-_.]+/g, '-') : name;
}
