import type { ResultLogReader } from './result-log-port.ts';
import type { z } from 'zod';
import type { Settings } from '../config.ts';
import type { EventLogger } from '../events/file-log/logger.ts';
import type { EventStore } from '../events/port.ts';
import type { JsonObject, JsonValue } from '../signing/rfc8785.ts';
import type { KeyFamily } from '../signing/key-families.ts';
import type { Keyring } from '../signing/keyring.ts';
import type { CanonicalRecord } from '../signing/seal.ts';
import type { ChainRule } from './audit-rule.ts';
import { engineThreadsBusy } from './engine-threads/pool.ts';
import type { RecordText } from './record-text.ts';
import type { Refusal } from './refusal.ts';

export type { Refusal } from './refusal.ts';

/** The 7 families of spec section 1, keyed by a short id used in paths of the code. */
export const FAMILIES = {
  governance: 'Governance',
  trust: 'Trust and Reputation',
  forensics: 'Forensics and Evidence',
  security: 'Security and Compliance',
  agent: 'Agent Infrastructure',
  documents: 'Documents and Data',
  research: 'Research and Synthesis',
} as const;
export type Family = keyof typeof FAMILIES;

/** Where the canonical record sits in a response (spec section 2); `null`: members at top level. */
export type SignedMember = 'evidenceCore' | 'sealed' | 'receipt' | 'verdictCore';

export type HttpMethod = 'GET' | 'POST';

/** What every command and free handler may use. Engines get none of it: they are pure. */
export interface ServiceDeps {
  store: EventStore;
  keyring: Keyring;
  settings: Settings;
  /** Absolute base URL the service is reached at (no trailing slash). */
  baseUrl: string;
  stats: StatsReader;
  /** The transparency log of signed results; absent when RESULT_LOG=off. */
  resultLog?: ResultLogReader;
}

/** Aggregate usage figures for the free stats route (projections/public-stats.ts serves them). */
export interface PublicStats {
  paidCalls: number;
  revenueAtomic: string;
  revenueUsd: string;
  paymentChallenges: number;
  generatedAt: number;
  cacheSeconds: number;
}

export interface StatsReader {
  snapshot(): Promise<PublicStats>;
  /** Called by the HTTP layer for each correct 402 challenge it answers. */
  recordChallenge(): void;
}

/** One paid call, as the saga hands it to a command. */
export interface CallContext extends ServiceDeps {
  /** Unix seconds; the only clock a command may use, stamped once per call. */
  now: number;
  /** The payer: the EIP-3009 `from`, lowercase 0x address. */
  payer: string;
  /** The payment's stream name: the origin of every deterministic event id of this call. */
  paymentId: string;
}

export interface CommandResult {
  /** The canonical record that is signed and returned. */
  record: JsonObject;
  /**
   * Members answered beside the signed record, unsigned: outputs too large for the record (a
   * PDF, a redacted document), which the record binds by digest. They are not stored; a replay
   * rebuilds them by running the command again (see `PricedOperation.outputBeside`).
   */
  beside?: JsonObject;
  /**
   * A record this service signed before (a first record kept for everyone who sends the same
   * content), answered again as it was: when it was first signed. It is sealed with the key of
   * that time, which gives the signature first given; signed with the current key after a
   * rotation, it would fail its own verify route, which holds a record to the key of its stamp.
   * Only for a record the service stored itself, never for a time a caller chose.
   */
  firstSignedAt?: number;
  /**
   * The record's RFC 8785 bytes and SHA-256, made where the record was made (an engine thread,
   * fromThreadedEngine): runOperation signs them instead of canonicalising the record again on
   * the event loop. Only for bytes made from this very record.
   */
  canonical?: CanonicalRecord;
  /**
   * The record's JSON text, made with the canonical form: the event log and the HTTP answer copy
   * it instead of serialising the record on the event loop (seconds for an 11 MB record). Only
   * for text made from this very record.
   */
  recordText?: RecordText;
}

/**
 * What a precheck computed that its command would otherwise compute again (a parsed document,
 * the elements a limit check built), returned instead of undefined: the command of the same
 * request receives `handoff` as its third argument. It lives as long as the request (never kept,
 * never shared between requests) and decides nothing: the command signs the same record with it
 * or without it. Hand only what the check needed anyway, since the free quote runs the check too.
 */
export interface PrecheckHandoff<H> {
  handoff: H;
}

/** A precheck's answer: refuse, hand the command what it computed, or nothing (quote the call). */
export type PrecheckAnswer<H> = Refusal | PrecheckHandoff<H> | undefined;

/**
 * `H`: what the operation's precheck hands its command (PrecheckHandoff); `never`, the default,
 * for a command that is handed nothing, as most are.
 */
export interface Command<I, H = never> {
  /**
   * Runs after the payment is verified and before it is settled: a refusal here (403 for
   * another payer's state) charges nothing and changes nothing.
   */
  authorize?(input: I, ctx: CallContext): Promise<Refusal | undefined>;
  /**
   * The stream whose state `authorize` reads and `execute` decides on (`payer`: the verified
   * payment's `from`, lowercase, for state kept per payer). The paid calls naming one stream run
   * one at a time in this process, from `authorize` to the sealed result: otherwise two payers
   * racing for a new agent could both pass `authorize`, and the loser's command would refuse
   * after its payment was taken.
   */
  stateStream?(input: I, payer: string): string | undefined;
  /**
   * Does the work and appends the operation's domain events. Must be safe to run again for the
   * same paymentId (the saga resumes after a crash): deterministic event ids make a replayed
   * append a no-op, and a command that finds its own events already written rebuilds the same
   * record from them.
   *
   * `handoff`: what the operation's precheck handed over in this request; absent when it handed
   * nothing or did not run (a command called directly). It saves work and changes nothing: the
   * record is the same without it. A command that runs on an engine thread sends the thread its
   * input, not the handoff (a clone of it would cost what it saves, and a value that cannot be
   * cloned would fail the paid call).
   */
  execute(input: I, ctx: CallContext, handoff?: H): Promise<CommandResult>;
  /**
   * The engine runs on the engine threads (engine-threads/): with every thread busy and the
   * queue full, the route refuses before its quote (503 engine_busy) rather than take a payment
   * for a call that would wait minutes.
   */
  runsOnEngineThread?: true;
}

/** A pure engine: the caller's validated input and the call's clock in, the record out. */
export type Engine<I> = (input: I, now: number) => JsonObject;

/**
 * The command of a stateless operation: the engine's record is the whole result, and the signed
 * result in the payment stream is the whole history of the call, so a resumed call simply
 * recomputes the same record.
 */
export function fromEngine<I>(engine: Engine<I>): Command<I> {
  return {
    async execute(input, ctx) {
      return { record: engine(input, ctx.now) };
    },
  };
}

interface RouteBase {
  /** Stable operation id, e.g. "veritrack.attest"; also the MCP tool name. */
  id: string;
  method: HttpMethod;
  /** Koa-router path; path parameters as `:name`. */
  path: string;
  family: Family | 'service';
  summary: string;
  description: string;
}

/** `H`: what its precheck hands its command (PrecheckHandoff); `unknown` where any operation fits. */
export interface PricedOperation<I = unknown, H = unknown> extends RouteBase {
  kind: 'priced';
  family: Family;
  /** Decimal USD string exactly as the spec prices it, e.g. "0.25". */
  priceUsd: string;
  /** Where the input comes from: a JSON body, the query string, or a multipart form. */
  inputFrom: 'json' | 'query' | 'multipart';
  input: z.ZodType<I>;
  /** A valid input: shown in the documents and the bazaar discovery extension. */
  example: I;
  /** Schema of the 200 response body, for the documents. */
  output: z.ZodType;
  /** Key that signs the record; null for the one unsigned product (the ebook stream). */
  keyFamily: KeyFamily | null;
  /** null: the record's members are returned at the top level (field-by-field families). */
  signedMember: SignedMember | null;
  /** Path of the free route that re-checks this operation's result. */
  verifyPath?: string;
  /**
   * An outcome the input alone decides before any work (a missing required field, an
   * oversized memory value): answered 422, unsigned and free, before any quote. Runs again on
   * the paid request, before its command: what it computed for the check can be handed to that
   * command (PrecheckHandoff) instead of being computed twice.
   */
  precheck?(input: I, settings: Settings, now: number): PrecheckAnswer<H>;
  /**
   * Like precheck, for an outcome the stored state decides whatever the payer: something the
   * request names that does not exist (an unknown lease) is answered 422 NOT-FOUND before any
   * quote, so nobody is asked to pay for a call that cannot succeed. Reads only. Also where an
   * input check needs a library loaded on first use (an XML parser, phone metadata). It may hand
   * its command a value too; it runs after precheck, and a value it hands replaces precheck's.
   */
  precheckState?(input: I, deps: ServiceDeps): Promise<PrecheckAnswer<H>>;
  /** Absent until built: the route then answers 501 and is never quoted. */
  command?: Command<I, H>;
  /**
   * For an operation that sells a file: after settlement the answer is the file, streamed from
   * disk, and the signed answer travels in the X-Purchase-Receipt header. Called again on a
   * replay of the same payment, which streams the file again and charges nothing more.
   */
  deliver?(signedAnswer: JsonObject, deps: ServiceDeps): Promise<FileDelivery>;
  /**
   * The command answers outputs beside its record (CommandResult.beside). Its replay then runs
   * the command again (engines are deterministic) and checks that it signs the stored digest.
   */
  outputBeside?: boolean;
}

export interface FreeRequest {
  /** HEAD is answered as GET without its body, and must change nothing (RFC 9110 section 9.3.2). */
  method: string;
  query: Record<string, string | undefined>;
  params: Record<string, string>;
  body: unknown;
}

export type FreeResponse =
  | { status?: number; body: JsonValue; headers?: Record<string, string> }
  | { status?: number; text: string; contentType: string; headers?: Record<string, string> }
  /** Bytes as they are; `compressible`: gzipped for a client that accepts gzip. */
  | { status?: number; bytes: Buffer; contentType: string; compressible?: boolean; headers?: Record<string, string> }
  /** A file streamed from disk, never buffered whole. */
  | { status?: number; file: string; contentType: string; headers?: Record<string, string> };

/** A paid file: what the HTTP layer streams after settlement, and how it is described. */
export type FileDelivery =
  | { path: string; contentType: string; bytes: number; sha256: string; filename: string }
  /** The file bought is no longer the file served (replaced since the purchase). */
  | { gone: string };

export interface FreeRoute<I = unknown> extends RouteBase {
  kind: 'free';
  /** Validates the merged request (query, path params, body); failure -> 422. */
  input?: z.ZodType<I>;
  /** Which parts of the request feed `input`, for the documents. */
  inputFrom?: 'query' | 'json' | 'path' | 'query-or-json' | 'query-or-path';
  output: z.ZodType;
  /** Response media type for the documents when not JSON. */
  produces?: string;
  /** Catalogued but not built: the route answers 501 and the documents say so. */
  planned?: boolean;
  handle(input: I, deps: ServiceDeps, request: FreeRequest): Promise<FreeResponse>;
}

// Method-syntax members are bivariant, so an entry of any input type fits `unknown` here.
export type Route = PricedOperation<unknown> | FreeRoute<unknown>;

/**
 * The checks before the quote: a refusal, or the call may be quoted and run, with what the
 * prechecks handed its command (to pass to runOperation in the same request, and nowhere else).
 */
export type BeforeQuote<H> = { refusal: Refusal; handoff?: undefined } | { refusal?: undefined; handoff?: H };

/**
 * What an operation answers before its quote for a validated input: its precheck's refusal
 * (the input alone), else engine_busy when its engine would wait for a full pool, else its state
 * precheck's, else nothing to refuse, with the value a precheck handed. HTTP and MCP ask the
 * same, on the free quote and again on the paid request; nothing is charged for a refusal.
 */
export async function checkBeforeQuote<I, H>(op: PricedOperation<I, H>, input: I, deps: ServiceDeps, now: number): Promise<BeforeQuote<H>> {
  const checked = op.precheck?.(input, deps.settings, now);
  if (isRefusal(checked)) return { refusal: checked };
  const busy = op.command?.runsOnEngineThread ? engineThreadsBusy(deps.settings) : undefined;
  if (busy) return { refusal: busy };
  const checkedState = await op.precheckState?.(input, deps);
  if (isRefusal(checkedState)) return { refusal: checkedState };
  const handed = checkedState ?? checked;
  return handed ? { handoff: handed.handoff } : {};
}

const isRefusal = <H>(answer: PrecheckAnswer<H>): answer is Refusal => answer !== undefined && !('handoff' in answer);

/**
 * Keeps the input type of an entry inferred from its schema, and the type of what its precheck
 * hands its command from the two (none, `never`, unless the precheck hands one).
 */
export function pricedOperation<S extends z.ZodType, H = never>(entry: Omit<PricedOperation<z.infer<S>, H>, 'kind' | 'input'> & { input: S }): PricedOperation<z.infer<S>, H> {
  return { kind: 'priced', ...entry } as PricedOperation<z.infer<S>, H>;
}

export function freeRoute<S extends z.ZodType>(
  entry: Omit<FreeRoute<z.infer<S>>, 'kind' | 'input'> & { input?: S },
): FreeRoute<z.infer<S>> {
  return { kind: 'free', ...entry } as FreeRoute<z.infer<S>>;
}

/** USD decimal string -> USDC atomic units (6 decimals), exact (no floating point). */
export function usdToAtomic(usd: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,6}))?$/.exec(usd);
  if (!m) throw new Error(`not a USD amount with at most 6 decimals: ${usd}`);
  return BigInt(m[1]!) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0'));
}

/**
 * What a family contributes to the service: its routes (priced operations, verify and read-back
 * routes) and the hash-chain rules the audit applies to the streams its operations keep.
 */
export interface FamilyModule {
  family: Family;
  routes: readonly Route[];
  auditRules: readonly ChainRule[];
  /** What the service keeps folded from the log for the family's routes while it runs. */
  readModels: readonly ReadModel[];
}

export function defineFamily(family: Family, routes: readonly Route[], auditRules: readonly ChainRule[] = [], readModels: readonly ReadModel[] = []): FamilyModule {
  return { family, routes, auditRules, readModels };
}

/**
 * A view of the log that a family's routes read, kept by the service from its start to its
 * stop: started once the store is open, with a directory of its own in the data directory for
 * what it keeps across starts, and stopped (saving what it holds) when the service closes.
 */
export interface ReadModel {
  /** Names its directory: DATA_DIR/projections/<name>. */
  name: string;
  start(store: EventStore, options: { dir: string; log: EventLogger }): Promise<{ stop(): Promise<void> }>;
}
