import { z } from 'zod';
import { jsonValue } from '../../../kernel/route-kit/schemas.ts';

/**
 * The three accepted inputs. The lockfile and the SBOM are documents other tools write: their
 * members this operation reads are typed, every other member is kept as bounded JSON and ignored.
 */
export const MAX_DEPENDENCIES = 20_000;

const lockfileEntry = z
  .object({
    version: z.string().max(256).optional().describe('The installed version'),
    name: z.string().max(214).optional().describe('The real package name when installed under an alias'),
    link: z.boolean().optional().describe('A symlink to a workspace folder (listed under its own key)'),
  })
  .catchall(jsonValue);

export const packageLockSchema = z
  .object({
    lockfileVersion: z.union([z.literal(2), z.literal(3)]).describe('npm lockfile format 2 or 3 (format 1 has no packages map)'),
    packages: z.record(z.string().max(1024), lockfileEntry).describe('Keys are install paths ("" is the project itself, "node_modules/x" a dependency)'),
  })
  .catchall(jsonValue);

const cyclonedxComponent = z
  .object({
    name: z.string().max(1024).optional(),
    version: z.string().max(256).optional(),
    purl: z.string().max(2048).optional(),
    components: z.array(z.record(z.string(), jsonValue)).max(MAX_DEPENDENCIES).optional().describe('Nested components (read to any depth the JSON bound allows)'),
  })
  .catchall(jsonValue);

export const cyclonedxSchema = z
  .object({
    bomFormat: z.literal('CycloneDX'),
    specVersion: z.enum(['1.5', '1.6']),
    components: z.array(cyclonedxComponent).max(MAX_DEPENDENCIES).optional(),
  })
  .catchall(jsonValue);

export const dependencyRiskInput = z
  .object({
    package_lock: packageLockSchema.optional().describe('An npm package-lock.json (lockfileVersion 2 or 3)'),
    cyclonedx: cyclonedxSchema.optional().describe('A CycloneDX 1.5 or 1.6 JSON SBOM; components are matched by their purl'),
    purls: z.array(z.string().min(1).max(2048)).min(1).max(MAX_DEPENDENCIES).optional().describe('Package URLs with versions: pkg:npm/..., pkg:pypi/..., pkg:maven/..., pkg:golang/...'),
  })
  .strict();

export type DependencyRiskInput = z.infer<typeof dependencyRiskInput>;
export type PackageLock = z.infer<typeof packageLockSchema>;
export type CycloneDx = z.infer<typeof cyclonedxSchema>;

export const INPUT_FORMATS = ['package_lock', 'cyclonedx', 'purls'] as const;
