import { z } from 'zod';
import { freeRoute, type FreeResponse, type FreeRoute, type ServiceDeps } from '../kernel/operation.ts';
import type { ResultLogReader, SignedCheckpoint } from '../kernel/result-log-port.ts';
import { parseTilePath, TILE_WIDTH } from '../transparency/tlog-tiles.ts';

const hex64 = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters');
const treeSize = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer')
  .transform(Number)
  // Sixteen digits reach past 2^53, where Number would answer about a size nobody asked for.
  .refine(Number.isSafeInteger, 'must be at most 2^53 - 1');

const leafIndex = z
  .string()
  .regex(/^(?:0|[1-9][0-9]{0,15})$/, 'must be a non-negative integer')
  .transform(Number)
  .refine(Number.isSafeInteger, 'must be at most 2^53 - 1');

const checkpointSchema = z.object({ origin: z.string(), tree_size: z.number().int(), root_hash: hex64, issued_at: z.number().int(), key_id: z.string(), note: z.string() });
/** The verification bundle's format name: what the offline verifiers read. */
export const BUNDLE_FORMAT = 'attestation-result-bundle/v1';

const witnessStatusSchema = z.object({ name: z.string(), submission_url: z.string(), cosigned_size: z.number().int().nullable(), problem: z.string().optional() });

const leafSchema = z.object({ key_family: z.string(), key_id: z.string(), sha256: hex64 });

/** A refusal of a free route: answered as the service's usual error body. */
class LogAnswer extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

function logOf(deps: ServiceDeps): ResultLogReader {
  if (!deps.resultLog) throw new LogAnswer(503, 'result_log_off', 'the result log is switched off on this service (RESULT_LOG=off)');
  return deps.resultLog;
}

function latestOrWait(log: ResultLogReader) {
  const latest = log.latestCheckpoint();
  if (!latest) throw new LogAnswer(404, 'no_checkpoint_yet', 'no checkpoint has been issued yet: the first one follows the first signed result within seconds');
  return latest;
}

/** The checkpoint's note with the cosignature lines of the witnesses that cosigned its tree (a signed note holds any number of signatures). */
function cosignedNote(log: ResultLogReader, checkpoint: SignedCheckpoint): string {
  return checkpoint.note + log.witnessCosignatures(checkpoint.tree_size).join('');
}

/** Turns a LogAnswer into its status and body; anything else stays an error. */
function answering<I>(handle: (input: I, deps: ServiceDeps) => Promise<FreeResponse>) {
  return async (input: I, deps: ServiceDeps): Promise<FreeResponse> => {
    try {
      return await handle(input, deps);
    } catch (err) {
      if (err instanceof LogAnswer) return { status: err.status, body: { error: err.error, message: err.message } };
      throw err;
    }
  };
}

/**
 * The free routes of the transparency log of signed results (docs/verifying.md): its latest
 * signed checkpoint, inclusion proofs by result digest, and consistency proofs between sizes.
 */
export const transparencyRoutes: FreeRoute[] = [
  freeRoute({
    id: 'log.checkpoint',
    method: 'GET',
    path: '/v1/log/checkpoint',
    family: 'service',
    summary: 'The latest signed checkpoint of the result log (C2SP tlog-checkpoint, text/plain).',
    description:
      'A C2SP signed note: origin, tree size and base64 root hash, signed by the log key (Ed25519 note signature) and with a timestamped cosignature/v1 line by the same key that binds it to a time. Verify with the public key at /v1/log/public-key. Followed by the cosignatures of the witnesses (C2SP tlog-witness) that cosigned this tree, when the service has witnesses (GET /v1/log lists them).',
    output: z.string(),
    produces: 'text/plain; charset=utf-8',
    handle: answering(async (_input, deps) => {
      const log = logOf(deps);
      return { text: cosignedNote(log, latestOrWait(log)), contentType: 'text/plain; charset=utf-8', headers: { 'Cache-Control': 'no-cache' } };
    }),
  }),
  freeRoute({
    id: 'log.info',
    method: 'GET',
    path: '/v1/log',
    family: 'service',
    summary: 'The result log: its size, its latest checkpoint as JSON, and where its proofs are.',
    description: 'Every signed result of the service is a leaf of one RFC 6962 Merkle tree; this route says how large it is and what the last checkpoint signed, where its proofs are, the prefix of its C2SP tlog-tiles API (tlog_tiles), the witnesses that cosign its checkpoints (C2SP tlog-witness) with the largest tree each cosigned, and why the log has paused folding results when it has (its disk is full).',
    output: z.object({ size: z.number().int(), paused: z.string().optional(), leaf_format: z.string(), checkpoint: checkpointSchema.nullable(), public_key: z.string(), proofs: z.record(z.string(), z.string()), tlog_tiles: z.string(), witnesses: z.array(witnessStatusSchema) }),
    handle: answering(async (_input, deps) => {
      const log = logOf(deps);
      const paused = log.pausedBecause();
      return {
        body: {
          size: log.size(),
          ...(paused ? { paused } : {}),
          leaf_format: 'RFC 8785 JSON {key_family, key_id, sha256}, hashed as an RFC 6962 leaf',
          checkpoint: log.latestCheckpoint() ?? null,
          public_key: `${deps.baseUrl}/v1/log/public-key`,
          proofs: { inclusion: `${deps.baseUrl}/v1/log/proof/inclusion?sha256={sha256}`, consistency: `${deps.baseUrl}/v1/log/proof/consistency?first={size}&second={size}` },
          tlog_tiles: `${deps.baseUrl}/v1/log`,
          witnesses: log.witnessStatus(),
        },
      };
    }),
  }),
  freeRoute({
    id: 'log.tile',
    method: 'GET',
    path: '/v1/log/tile/*tile',
    family: 'service',
    summary: 'A tile of the result log\'s Merkle tree, or an entry bundle of its leaves (C2SP tlog-tiles, prefix /v1/log).',
    description:
      'The C2SP tlog-tiles read API with the prefix /v1/log (its checkpoint is /v1/log/checkpoint): `tile/<L>/<N>[.p/<W>]` is 256 (or W) RFC 6962 hashes of level L, `tile/entries/<N>[.p/<W>]` the leaves themselves, each a big-endian uint16 length and the leaf\'s RFC 8785 bytes. With them a monitor or witness computes every root and proof itself. Served for the tree of the latest checkpoint and its earlier sizes; 404 for a tile that tree does not hold yet. Immutable: cached for a year. Entry bundles are gzipped for a client that accepts gzip.',
    input: z.object({ tile: z.string().max(200) }).strict(),
    inputFrom: 'path',
    output: z.string(),
    produces: 'application/octet-stream',
    handle: answering(async (input: { tile: string }, deps) => {
      const log = logOf(deps);
      const parsed = parseTilePath(input.tile);
      if ('reason' in parsed) throw new LogAnswer(422, 'bad_tile_path', `tile: ${parsed.reason}`);
      const bytes = log.tile(parsed.tile);
      if (!bytes) {
        const signed = log.latestCheckpoint()?.tree_size ?? 0;
        const what = parsed.tile.width === TILE_WIDTH ? 'a full tile' : `a partial tile of width ${parsed.tile.width}`;
        throw new LogAnswer(404, 'tile_not_in_tree', `the latest checkpoint signs a tree of ${signed} leaves, which does not hold ${what} at tile/${input.tile}`);
      }
      return { bytes, contentType: 'application/octet-stream', compressible: parsed.tile.level === 'entries', headers: { 'Cache-Control': 'public, max-age=31536000, immutable' } };
    }),
  }),
  freeRoute({
    id: 'log.proof.inclusion',
    method: 'GET',
    path: '/v1/log/proof/inclusion',
    family: 'service',
    summary: 'Inclusion proof of a signed result (by its sha256) in the tree of a checkpoint.',
    description:
      'Against the latest checkpoint (returned with the proof) or the tree size given. 404 while no checkpoint covers the result yet: checkpoints follow results within seconds. A record signed by several calls (two payers attesting one claim) is several leaves: leaf_index (a paid answer\'s X-Log-Leaf-Index) proves that one, and must hold this sha256; without it, the first.',
    input: z.object({ sha256: hex64, tree_size: treeSize.optional(), leaf_index: leafIndex.optional() }).strict(),
    inputFrom: 'query',
    output: z.object({ leaf_index: z.number().int(), tree_size: z.number().int(), leaf: leafSchema, leaf_hash: hex64, audit_path: z.array(hex64), root_hash: hex64, checkpoint: checkpointSchema.nullable() }),
    handle: answering(async (input: { sha256: string; tree_size?: number | undefined; leaf_index?: number | undefined }, deps) => {
      const log = logOf(deps);
      const checkpoint = input.tree_size === undefined ? latestOrWait(log) : undefined;
      const size = input.tree_size ?? checkpoint!.tree_size;
      if (size > log.size()) throw new LogAnswer(404, 'tree_size_not_reached', `the log holds ${log.size()} leaves, not ${size}`);
      if (input.leaf_index !== undefined && !log.holdsAt(input.leaf_index, input.sha256))
        throw new LogAnswer(404, 'not_in_tree', `leaf ${input.leaf_index} is not a leaf of this sha256`);
      const proof = log.inclusion(input.sha256, size, input.leaf_index);
      if (!proof) {
        const index = input.leaf_index ?? log.leafIndexOf(input.sha256);
        const why = index === undefined ? 'no result with this sha256 is in the log' : `the result is leaf ${index}, after the tree of ${size} leaves: the next checkpoint covers it`;
        throw new LogAnswer(404, 'not_in_tree', why);
      }
      return { body: { ...proof, checkpoint: checkpoint ?? null } };
    }),
  }),
  freeRoute({
    id: 'log.proof.consistency',
    method: 'GET',
    path: '/v1/log/proof/consistency',
    family: 'service',
    summary: 'Consistency proof between two tree sizes of the result log (RFC 6962 section 2.1.2).',
    description: 'Shows that the tree of `first` leaves is a prefix of the tree of `second` leaves (default: the latest checkpoint), so no signed result was ever removed or changed.',
    input: z.object({ first: treeSize, second: treeSize.optional() }).strict(),
    inputFrom: 'query',
    output: z.object({ first: z.number().int(), second: z.number().int(), first_root: hex64, second_root: hex64, path: z.array(hex64) }),
    handle: answering(async (input: { first: number; second?: number | undefined }, deps) => {
      const log = logOf(deps);
      const second = input.second ?? latestOrWait(log).tree_size;
      if (input.first > second || second > log.size()) throw new LogAnswer(422, 'bad_tree_sizes', `need 1 <= first <= second <= ${log.size()}; got first=${input.first}, second=${second}`);
      return { body: { ...log.consistency(input.first, second) } };
    }),
  }),
  freeRoute({
    id: 'log.result',
    method: 'GET',
    path: '/v1/log/result/:sha256',
    family: 'service',
    summary: 'A logged signed result with everything needed to verify it offline: a verification bundle.',
    description:
      'The signed record with its digest and signature, the public key of its family, its inclusion proof against the latest checkpoint and that checkpoint with the log key. Save it and check it with `npm run verify -- bundle.json`, the page at /verify, or verifiers/python/verify_result.py.',
    input: z.object({ sha256: hex64 }).strict(),
    inputFrom: 'path',
    output: z.looseObject({ format: z.literal(BUNDLE_FORMAT) }),
    handle: answering(async (input: { sha256: string }, deps) => {
      const log = logOf(deps);
      const result = await log.signedResult(input.sha256);
      if (!result) throw new LogAnswer(404, 'not_logged', 'no signed result with this sha256 is in the log');
      const checkpoint = log.latestCheckpoint();
      const inclusion = checkpoint ? log.inclusion(input.sha256, checkpoint.tree_size) : undefined;
      const familyKey = deps.keyring.all().find((k) => k.keyId === result.key_id);
      const logKey = deps.keyring.publicKey('log');
      return {
        body: {
          format: BUNDLE_FORMAT,
          result,
          signing_key: familyKey ? { family: familyKey.family, algorithm: 'Ed25519', public_key: familyKey.publicKeyHex, key_id: familyKey.keyId } : null,
          inclusion: inclusion ?? null,
          checkpoint: checkpoint ? cosignedNote(log, checkpoint) : null,
          log_key: { origin: checkpoint?.origin ?? null, algorithm: 'Ed25519', public_key: logKey.publicKeyHex, key_id: logKey.keyId },
          ...(inclusion ? {} : { pending: 'no checkpoint covers this result yet: fetch the bundle again in a few seconds' }),
        },
      };
    }),
  }),
];
