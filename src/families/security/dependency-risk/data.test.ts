import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sha256Hex } from '../../../signing/hash.ts';
import { advisoryFile } from './advisory-set.ts';
import { ADVISORY_FILE_URL, shippedAdvisories, SHIPPED_ADVISORIES_SUMMARY } from './data.ts';
import { VERSION_RULES } from './ecosystems.ts';
import { assessDependencyRisk } from './engine.ts';

const ADVISORIES = shippedAdvisories();

// The OSV JSON schema as ossf/osv-schema publishes it (validation/schema.json, release 1.7.5), vendored unchanged.
const osvSchema = JSON.parse(readFileSync(new URL('./data/osv-schema-1.7.5.json', import.meta.url), 'utf8')) as object;
const bytes = readFileSync(ADVISORY_FILE_URL);
const file = advisoryFile.parse(JSON.parse(bytes.toString('utf8')));
const raw = JSON.parse(bytes.toString('utf8')) as { advisories: Array<Record<string, unknown>> };

describe('the curated advisory set', () => {
  it('holds at least 200 advisories with unique ids, across the four ecosystems', () => {
    expect(raw.advisories.length).toBeGreaterThanOrEqual(200);
    expect(new Set(file.advisories.map((a) => a.id)).size).toBe(file.advisories.length);
    for (const ecosystem of ['npm', 'PyPI', 'Maven', 'Go'] as const) expect(ADVISORIES.advisoriesPerEcosystem[ecosystem], ecosystem).toBeGreaterThan(0);
  });

  it('every advisory is valid against the OSV schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(osvSchema);
    // The validator does reject: an id outside the registered prefixes and a missing modified stamp.
    expect(validate({ id: 'NOPE-1', summary: 'x' })).toBe(false);
    const invalid = raw.advisories.flatMap((advisory) => {
      const id = String(advisory.id);
      return validate(advisory) ? [] : [`${id}: ${ajv.errorsText(validate.errors)}`];
    });
    expect(invalid).toEqual([]);
  });

  it('every range event is a version under its ecosystem\'s rules, so no range is silently skipped', () => {
    const unparseable = file.advisories.flatMap((advisory) =>
      advisory.affected.flatMap((affected) =>
        affected.ranges.flatMap((range) =>
          range.events.flatMap((event) => Object.values(event).filter((v) => v !== '0' && VERSION_RULES[affected.package.ecosystem].parse(v) === undefined).map((v) => `${advisory.id} ${affected.package.name} ${v}`)),
        ),
      ),
    );
    expect(unparseable).toEqual([]);
  });

  it('names aliases for every advisory, and the record cites the SHA-256 of the exact bytes shipped', () => {
    expect(file.advisories.filter((a) => a.aliases.length === 0).map((a) => a.id)).toEqual([]);
    expect(ADVISORIES.sha256).toBe(sha256Hex(bytes));
    expect(ADVISORIES.dataDate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('is described in the catalogue as the validated index has it, though the summary reads the file without validating it', () => {
    const { name, version, dataDate, advisoryCount } = ADVISORIES;
    expect(SHIPPED_ADVISORIES_SUMMARY).toEqual({ name, version, dataDate, advisoryCount });
  });
});

// The members of a signed record this test reads, checked rather than assumed.
const assessed = z.object({
  dependencies: z.array(
    z.object({
      name: z.string(),
      version: z.string().nullable(),
      status: z.string(),
      advisories: z.array(z.object({ id: z.string(), fixed_version: z.string().nullable() })).optional(),
    }),
  ),
});

function assess(purls: string[]) {
  const record = assessed.parse(assessDependencyRisk({ purls }, 1_767_225_600, ADVISORIES));
  return (name: string, version: string) => {
    const dependency = record.dependencies.find((d) => d.name === name && d.version === version);
    if (!dependency) throw new Error(`${name}@${version} is not in the record`);
    return { status: dependency.status, advisories: (dependency.advisories ?? []).map((a) => [a.id, a.fixed_version]) };
  };
}

describe('ranges refreshed from github/advisory-database on 2026-11-27', () => {
  const JACKSON = 'com.fasterxml.jackson.core:jackson-databind';

  it('the first fixed version of each branch is no longer reported vulnerable (found by fuzzing)', () => {
    const find = assess(['pkg:npm/axios@0.28.1', 'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.12.7.1', 'pkg:npm/lodash@4.17.19']);
    expect(find('axios', '0.28.1')).toEqual({ status: 'NOT-AFFECTED', advisories: [] });
    expect(find(JACKSON, '2.12.7.1')).toEqual({ status: 'NOT-AFFECTED', advisories: [] });
    // lodash 4.17.19 is still inside GHSA-35jh-r3h4-6jhm (fixed in 4.17.21), and in nothing else.
    expect(find('lodash', '4.17.19').advisories).toEqual([['GHSA-35jh-r3h4-6jhm', '4.17.21']]);
  });

  it('a version inside a range is still vulnerable, with the fix of its own branch', () => {
    const find = assess([
      'pkg:npm/axios@0.27.2',
      'pkg:npm/axios@1.5.1',
      'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.12.7',
      'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.13.3',
      'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.3.0',
      'pkg:npm/lodash@4.17.18',
      'pkg:npm/lodash-es@4.17.19',
    ]);
    expect(find('axios', '0.27.2').advisories).toContainEqual(['GHSA-wf5p-g6vw-rhxx', '0.28.0']);
    expect(find('axios', '1.5.1').advisories).toContainEqual(['GHSA-wf5p-g6vw-rhxx', '1.6.0']);
    expect(find(JACKSON, '2.12.7').advisories).toContainEqual(['GHSA-rgv9-q543-rqg4', '2.12.7.1']);
    expect(find(JACKSON, '2.13.3').advisories).toContainEqual(['GHSA-rgv9-q543-rqg4', '2.13.4']);
    // GHSA-rgv9-q543-rqg4 starts at 2.4.0 now.
    expect(find(JACKSON, '2.3.0').advisories.map(([id]) => id)).not.toContain('GHSA-rgv9-q543-rqg4');
    expect(find('lodash', '4.17.18').advisories).toContainEqual(['GHSA-p6mc-m468-83gw', '4.17.19']);
    // lodash-es was fixed one release later than lodash.
    expect(find('lodash-es', '4.17.19').advisories).toContainEqual(['GHSA-p6mc-m468-83gw', '4.17.20']);
  });
});
