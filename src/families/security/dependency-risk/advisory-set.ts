import { z } from 'zod';
import { ECOSYSTEMS, normalisePackageName, type Ecosystem } from './ecosystems.ts';

/**
 * The members of an OSV record (ossf/osv-schema) this operation reads. The full record is
 * validated against the vendored OSV JSON schema in the tests; here zod checks, at load, that
 * every advisory has what the matching needs.
 */
const osvEvent = z.union([z.object({ introduced: z.string() }).strict(), z.object({ fixed: z.string() }).strict(), z.object({ last_affected: z.string() }).strict()]);
const osvRange = z.object({ type: z.enum(['SEMVER', 'ECOSYSTEM']), events: z.array(osvEvent).min(1) });
const osvAffected = z.object({
  package: z.object({ ecosystem: z.enum(ECOSYSTEMS), name: z.string().min(1), purl: z.string().optional() }),
  ranges: z.array(osvRange).min(1),
});
export const osvAdvisory = z.object({
  id: z.string().min(1),
  aliases: z.array(z.string()).default([]),
  summary: z.string().min(1),
  severity: z.array(z.object({ type: z.string(), score: z.string() })).optional(),
  affected: z.array(osvAffected).min(1),
  database_specific: z.object({ severity: z.string().optional() }).loose().optional(),
});
export const advisoryFile = z.object({
  name: z.string(),
  version: z.string(),
  data_date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  sources: z.array(z.object({ name: z.string(), url: z.url(), commit: z.string().optional(), ecosystems: z.array(z.enum(ECOSYSTEMS)), advisories: z.number().int() })),
  advisories: z.array(osvAdvisory).min(1),
});

export type OsvAdvisory = z.infer<typeof osvAdvisory>;
export type OsvRange = z.infer<typeof osvRange>;
export type OsvEvent = z.infer<typeof osvEvent>;

export interface AffectedEntry {
  advisory: OsvAdvisory;
  ranges: OsvRange[];
}

/** The curated advisories, indexed by ecosystem and normalised package name, with the facts of the data set. */
export interface AdvisorySet {
  name: string;
  version: string;
  dataDate: string;
  sha256: string;
  advisoryCount: number;
  byPackage: Map<string, AffectedEntry[]>;
  packagesPerEcosystem: Record<Ecosystem, number>;
  advisoriesPerEcosystem: Record<Ecosystem, number>;
}

export function packageKey(ecosystem: Ecosystem, name: string): string {
  return `${ecosystem}\u0000${normalisePackageName(ecosystem, name)}`;
}

/** What the catalogue entry says of a set: its name, version, data date and advisory count. */
export type AdvisorySetSummary = Pick<AdvisorySet, 'name' | 'version' | 'dataDate' | 'advisoryCount'>;

const summaryMembers = advisoryFile.pick({ name: true, version: true, data_date: true }).extend({ advisories: z.array(z.unknown()).min(1) });

/**
 * The summary as the file states it, its advisories counted but not validated or indexed: that
 * is indexAdvisories' work (its first use, on an engine thread), and it took about 15 ms of every
 * start when the catalogue entry made it only to describe the set.
 */
export function summariseAdvisoryFile(fileText: string): AdvisorySetSummary {
  const file = summaryMembers.parse(JSON.parse(fileText));
  return { name: file.name, version: file.version, dataDate: file.data_date, advisoryCount: file.advisories.length };
}

/** Builds the index from the file's bytes (the SHA-256 is computed by the caller over the same bytes). */
export function indexAdvisories(fileText: string, sha256: string): AdvisorySet {
  const file = advisoryFile.parse(JSON.parse(fileText));
  const byPackage = new Map<string, AffectedEntry[]>();
  const packages: Record<Ecosystem, Set<string>> = { npm: new Set(), PyPI: new Set(), Maven: new Set(), Go: new Set() };
  const advisories: Record<Ecosystem, Set<string>> = { npm: new Set(), PyPI: new Set(), Maven: new Set(), Go: new Set() };
  for (const advisory of file.advisories) {
    for (const affected of advisory.affected) {
      const { ecosystem, name } = affected.package;
      const key = packageKey(ecosystem, name);
      const entries = byPackage.get(key) ?? [];
      const existing = entries.find((entry) => entry.advisory.id === advisory.id);
      if (existing) existing.ranges.push(...affected.ranges);
      else entries.push({ advisory, ranges: [...affected.ranges] });
      byPackage.set(key, entries);
      packages[ecosystem].add(key);
      advisories[ecosystem].add(advisory.id);
    }
  }
  const count = (sets: Record<Ecosystem, Set<string>>) => Object.fromEntries(Object.entries(sets).map(([e, s]) => [e, s.size])) as Record<Ecosystem, number>;
  return {
    name: file.name,
    version: file.version,
    dataDate: file.data_date,
    sha256,
    advisoryCount: file.advisories.length,
    byPackage,
    packagesPerEcosystem: count(packages),
    advisoriesPerEcosystem: count(advisories),
  };
}
