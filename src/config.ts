import { z } from 'zod';
import { parseWitnessList, type Witness } from './transparency/witness-list.ts';

/** Base mainnet USDC: the only asset the service quotes in. */
export const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address');
const privateKey = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex private key');
/**
 * A whole number in decimal digits. `z.coerce.number()` read `PORT=` as 0 (a random port),
 * `0x10` as 16 and `1e3` as 1000.
 */
const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]{1,16}$/, 'must be a whole number in decimal digits')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const settingsSchema = z
  .object({
    PORT: wholeNumber(0, 65535).default(4021),
    HOST: z.string().min(1).default('0.0.0.0'),
    PUBLIC_BASE_URL: z.url().optional(),
    DATA_DIR: z.string().min(1).default('./data'),
    EVENTSTORE_URL: z
      .string()
      .regex(
        /^(esdb|esdb\+discover|kurrentdb|kurrentdb\+discover|kdb|kdb\+discover):\/\//,
        'must start with esdb://, esdb+discover://, kurrentdb://, kurrentdb+discover://, kdb:// or kdb+discover://',
      )
      .optional(),
    /**
     * EventStoreDB's MaxAppendSize, as the server is configured (its default: 1 MiB). A paid
     * call whose result would not fit in one append is refused before the payment is taken.
     */
    EVENTSTORE_MAX_APPEND_BYTES: wholeNumber(65_536, 1_073_741_824).default(1_048_576),
    ATTESTATION_SECRET: z.string().min(32, 'must be at least 32 characters of secret material').optional(),
    // A fixed, well-known default receiver keeps `npm start` working on a fresh machine; local
    // settlement moves no money, and production deployments set their own PAY_TO.
    PAY_TO: address.default('0x209693Bc6afc0C5328bA36FaF03C514EF312287C'),
    SETTLEMENT: z.enum(['local', 'facilitator', 'onchain']).default('local'),
    FACILITATOR_URL: z.url().optional(),
    RPC_URL: z.url().optional(),
    RELAYER_PRIVATE_KEY: privateKey.optional(),
    NETWORK: z.literal('eip155:8453').default('eip155:8453'),
    USDC_ADDRESS: address.default(BASE_USDC),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    MEMORY_VALUE_CAP_BYTES: wholeNumber(1, 1024 * 1024).default(64 * 1024),
    /**
     * Megabytes (of JSON: Decider.keptSize) the folded states kept in memory may hold, for each
     * kind of state (agents' budgets, memory stores, catalogue entries, containment): a call on
     * a stream kept reads only its new events, and one on a stream not kept reads and folds it
     * whole (kernel/kept-folds.ts, docs/operations.md).
     */
    STATE_CACHE_MB: wholeNumber(0, 65_536).default(24),
    STATS_CACHE_SECONDS: wholeNumber(1, 3600).default(30),
    /** A client must send its request line and headers within this (slowloris). */
    HEADERS_TIMEOUT_MS: wholeNumber(100, 600_000).default(10_000),
    /** A client must send its whole request, body included, within this. */
    REQUEST_TIMEOUT_MS: wholeNumber(100, 3_600_000).default(30_000),
    /**
     * An idle keep-alive connection is closed after this. Longer than the idle time of the
     * clients and proxies in front (undici keeps 4 s, load balancers 60 s): the side that closes
     * must be the server, or a client sends on a connection the server is closing (ECONNRESET).
     */
    KEEP_ALIVE_TIMEOUT_MS: wholeNumber(100, 600_000).default(65_000),
    /**
     * What opening the embedded log checks: every frame's checksum ('all'), or only the events
     * after the index checkpoint ('checkpoint': a start independent of the log's length; see
     * docs/event-store.md).
     */
    EVENT_LOG_VERIFY: z.enum(['all', 'checkpoint']).default('all'),
    /** The transparency log of every signed result (docs/verifying.md); off only to measure its cost. */
    RESULT_LOG: z.enum(['on', 'off']).default('on'),
    /** While results arrive, a signed checkpoint is issued at least this often. */
    LOG_CHECKPOINT_INTERVAL_MS: wholeNumber(100, 3_600_000).default(2_000),
    /**
     * Witnesses asked to cosign every checkpoint (C2SP tlog-witness; docs/verifying.md): entries
     * separated by commas, each a cosignature/v1 verifier key and a submission URL prefix.
     */
    LOG_WITNESSES: z
      .string()
      .default('')
      .transform((text, ctx): Witness[] => {
        const parsed = parseWitnessList(text);
        if ('witnesses' in parsed) return parsed.witnesses;
        ctx.addIssue({ code: 'custom', message: parsed.reason });
        return z.NEVER;
      }),
    /** Invoice OCR: tesseract worker threads (CPU-heavy; one per spare core). */
    OCR_WORKERS: wholeNumber(1, 16).default(1),
    /** Invoice OCR: calls that may wait for a worker; beyond, 503 with Retry-After before the quote. */
    OCR_QUEUE: wholeNumber(0, 256).default(4),
    /** Document conversion and code review: threads their engines run on, off the event loop (one per spare core). */
    ENGINE_THREADS: wholeNumber(1, 16).default(1),
    /**
     * Calls that may wait for an engine thread; beyond, 503 with Retry-After before the quote.
     * Small, because the worst conversions hold a thread 12-17 s: with 8 waiting, the last waited
     * 109 s; with 2, under a minute.
     */
    ENGINE_QUEUE: wholeNumber(0, 256).default(2),
    /** The heap of each engine thread, in MB: an input that needs more is refused (422), and the service's own heap is never at stake. */
    ENGINE_HEAP_MB: wholeNumber(64, 8192).default(512),
    /**
     * How long one job may hold an engine thread, in ms: past it the thread is ended and the call
     * answered 503 engine_timeout, free when the engine ran before settlement. The slowest inputs
     * the operations accept measured 22-25 s (a 50,000-row table to DOCX) and 7-18 s (a 2,000-sentence
     * brief) on a loaded 2-core machine: 60 s leaves them more than twice that, and still frees a
     * thread held by a loop within a minute.
     */
    ENGINE_JOB_TIMEOUT_MS: wholeNumber(100, 3_600_000).default(60_000),
    /** The PDF the ebook routes sell; unset: the service's own handbook, generated into DATA_DIR. */
    EBOOK_PATH: z.string().min(1).optional(),
    /** Signed research: a directory of the operator's own .md and .txt documents, searched beside the shipped library. */
    RESEARCH_LIBRARY_DIR: z.string().min(1).optional(),
    /** How many first pages of the ebook make its free sample. */
    EBOOK_SAMPLE_PAGES: wholeNumber(1, 100).default(10),
  })
  .superRefine(
    (s, ctx) => {
      if (s.SETTLEMENT === 'facilitator' && !s.FACILITATOR_URL)
        ctx.addIssue({ code: 'custom', path: ['FACILITATOR_URL'], message: 'is required when SETTLEMENT=facilitator' });
      if (s.SETTLEMENT === 'onchain') {
        if (!s.RPC_URL) ctx.addIssue({ code: 'custom', path: ['RPC_URL'], message: 'is required when SETTLEMENT=onchain' });
        if (!s.RELAYER_PRIVATE_KEY)
          ctx.addIssue({ code: 'custom', path: ['RELAYER_PRIVATE_KEY'], message: 'is required when SETTLEMENT=onchain' });
      }
    },
    // zod skips a refinement once a member failed outright (an enum, a literal): the operator
    // would then learn of a missing setting only after fixing the others. A member that failed
    // keeps the text it was given, so a malformed URL is not reported as missing as well.
    { when: () => true },
  );

export type Settings = z.infer<typeof settingsSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment; every problem is reported on its own line, never one at a time. A
 * variable set to the empty string (`PORT=` in an env file) is unset: its default applies.
 */
export function loadSettings(env: Record<string, string | undefined> = process.env): Settings {
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = settingsSchema.safeParse(set);
  if (parsed.success) return parsed.data;
  throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.') || 'environment'}: ${i.message}`));
}

/** The base URL the service advertises in quotes and documents. */
export function publicBaseUrl(s: Settings, boundPort?: number): string {
  if (s.PUBLIC_BASE_URL) return s.PUBLIC_BASE_URL.replace(/\/+$/, '');
  const host = s.HOST === '0.0.0.0' || s.HOST === '::' ? 'localhost' : s.HOST;
  return `http://${host}:${boundPort ?? s.PORT}`;
}
