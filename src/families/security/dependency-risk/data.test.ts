import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../signing/hash.ts';
import { advisoryFile } from './advisory-set.ts';
import { ADVISORIES, ADVISORY_FILE_URL } from './data.ts';
import { VERSION_RULES } from './ecosystems.ts';

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
});
