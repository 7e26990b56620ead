import { z } from 'zod';
import { fromThreadedEngine } from '../../../kernel/engine-threads/threaded-command.ts';
import { pricedOperation, type Route } from '../../../kernel/operation.ts';
import { moduleBeside } from '../../../kernel/worker-script.ts';
import { hex64, signedResponse } from '../../../kernel/route-kit/schemas.ts';
import { bodyVerifyParams, onlyKinds, rebuildFromBody, verifyRoute } from '../../../kernel/route-kit/verify-route.ts';
import { SHIPPED_ADVISORIES_SUMMARY as SHIPPED } from './data.ts';
import { DEPENDENCY_RISK_OUTCOMES, DEPENDENCY_STATUSES, UNKNOWN_REASONS } from './engine.ts';
import { listedDependencies } from './dependencies.ts';
import { dependencyRiskInput, INPUT_FORMATS, MAX_DEPENDENCIES } from './input.ts';

const advisoryDescription = z.object({
  id: z.string(),
  aliases: z.array(z.string()),
  summary: z.string(),
  severity: z.array(z.object({ type: z.string(), vector: z.string() })).describe('CVSS vectors as the advisory gives them; empty when it gives none'),
  severity_label: z.string().nullable(),
});

const advisoryReference = z.object({
  id: z.string().describe('An advisory described in the record\'s advisories'),
  fixed_version: z.string().nullable().describe('The first fixed version above the dependency\'s version; null when the advisory names none'),
  last_affected_version: z.string().optional(),
});

const dependencyResult = z.object({
  ecosystem: z.string(),
  name: z.string(),
  version: z.string().nullable(),
  purl: z.string().optional(),
  occurrences: z.number().int(),
  status: z.enum(DEPENDENCY_STATUSES),
  reason: z.enum(UNKNOWN_REASONS).optional(),
  reason_detail: z.string().optional(),
  advisories: z.array(advisoryReference).optional(),
});

const ecosystemCoverage = z.object({ packages: z.number().int(), advisories: z.number().int() });

const dependencyRiskRecord = z.object({
  kind: z.literal('dependency-risk'),
  ruleset: z.object({
    id: z.literal('dependency-risk'),
    version: z.string(),
    version_rules: z.record(z.string(), z.string()),
    data: z.array(z.object({ name: z.string(), version: z.string(), sha256: hex64, data_date: z.string() })),
  }),
  input_format: z.enum(['npm-package-lock', 'cyclonedx', 'purl-list']),
  dependency_set_sha256: hex64,
  outcome: z.enum(DEPENDENCY_RISK_OUTCOMES),
  insufficient: z.array(z.object({ field: z.string(), status: z.literal('INSUFFICIENT-DATA'), reason: z.string() })).optional(),
  summary: z.object({ dependencies: z.number().int(), vulnerable: z.number().int(), not_affected: z.number().int(), unknown: z.number().int(), advisories_matched: z.number().int() }),
  coverage: z.object({
    advisories: z.number().int(),
    packages: z.number().int(),
    per_ecosystem: z.object({ npm: ecosystemCoverage, PyPI: ecosystemCoverage, Maven: ecosystemCoverage, Go: ecosystemCoverage }),
    data_date: z.string(),
    sha256: hex64,
  }),
  dependencies: z.array(dependencyResult),
  advisories: z.array(advisoryDescription).describe('Each advisory a dependency is affected by, once, in id order'),
  evidence_source: z.literal('caller-supplied'),
  not_performed: z.array(z.object({ check: z.string(), reason: z.string() })),
  assessedAt: z.number().int(),
});

const dependencyRisk = pricedOperation({
  id: 'security.dependency-risk',
  method: 'POST',
  path: '/v1/security/dependency-risk',
  family: 'security',
  priceUsd: '0.20',
  summary: 'Risk of a dependency tree from a curated fix-version list; unknown packages or versions reported as unknown.',
  description: `Matches the dependencies of one document (exactly one of: package_lock, an npm package-lock.json v2/v3; cyclonedx, a CycloneDX 1.5/1.6 JSON SBOM; purls, a list of package URLs) against a curated set of ${SHIPPED.advisoryCount} real OSV advisories (${SHIPPED.name} ${SHIPPED.version}, checked ${SHIPPED.dataDate}) for npm, PyPI, Maven and Go. Each range is evaluated as OSV specifies (introduced / fixed / last_affected) with the ecosystem's own version order: npm semver, PEP 440, Maven's version order, Go module semver (pseudo-versions, +incompatible). Each dependency is VULNERABLE (the ids of the advisories that affect it, each with the first fixed version above its version; each advisory's aliases, summary and CVSS vectors are listed once, in advisories), NOT-AFFECTED (its package is in the set and its version is outside every range) or UNKNOWN with the reason (package or ecosystem not covered, version missing or unparseable): never guessed. The record names the set's SHA-256 and data date. At most ${MAX_DEPENDENCIES} dependencies (lockfile packages, SBOM components with the nested ones, or purls): beyond, 422 too_many_dependencies before any quote. The engine runs on an engine thread (a full pool is 503 engine_busy before the quote). Re-check on POST /v1/security/dependency-risk/recheck (dependency-risk records only) or offline with the compliance public key.`,
  inputFrom: 'json',
  input: dependencyRiskInput,
  example: {
    package_lock: {
      name: 'shop-api',
      lockfileVersion: 3,
      packages: {
        '': { name: 'shop-api', version: '1.0.0' },
        'node_modules/lodash': { version: '4.17.20' },
        'node_modules/express': { version: '4.21.2' },
        'node_modules/left-pad': { version: '1.3.0' },
      },
    },
  },
  output: signedResponse(dependencyRiskRecord, 'evidenceCore'),
  keyFamily: 'compliance',
  signedMember: 'evidenceCore',
  verifyPath: '/v1/security/dependency-risk/recheck',
  // Which document to read is the caller's to say: none or several cannot be assessed.
  precheck(input) {
    const given = INPUT_FORMATS.filter((field) => input[field] !== undefined);
    if (given.length !== 1) {
      const message = given.length === 0 ? 'supply one of package_lock, cyclonedx or purls' : `supply only one of package_lock, cyclonedx or purls (got ${given.join(', ')})`;
      return { status: 422, error: 'one_document_required', message, outcome: 'INVALID-INPUT', issues: (given.length === 0 ? INPUT_FORMATS : given).map((path) => ({ path, message })) };
    }
    // The schema bounds each list; a lockfile's packages and nested SBOM components are counted here.
    const listed = listedDependencies(input);
    if (listed <= MAX_DEPENDENCIES) return undefined;
    const message = `the document lists ${listed} dependencies: at most ${MAX_DEPENDENCIES} are assessed in one call`;
    return { status: 422, error: 'too_many_dependencies', message, outcome: 'INVALID-INPUT', issues: [{ path: given[0]!, message }] };
  },
  // On an engine thread: 20,000 dependencies, each affected by several advisories, take it seconds.
  command: fromThreadedEngine(moduleBeside(import.meta.url, 'data'), 'assessWithShippedData'),
});

const KIND = 'dependency-risk';

/**
 * The compliance key signs the compliance snapshots too: a signature alone would make this route
 * answer valid for one of those. Only a dependency-risk record is re-checked here.
 */
const recheck = verifyRoute({
  id: 'security.dependency-risk.recheck',
  method: 'POST',
  path: '/v1/security/dependency-risk/recheck',
  family: 'security',
  keyFamily: 'compliance',
  summary: 'Re-checks a dependency risk result (body = the evidenceCore as JSON); a record of another kind signed with the compliance key is not valid here.',
  params: bodyVerifyParams,
  rebuild: rebuildFromBody,
  alsoCheck: onlyKinds(KIND),
});

export const dependencyRiskRoutes: Route[] = [dependencyRisk, recheck];
