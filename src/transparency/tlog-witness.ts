import type { Logger } from 'pino';
import { publicKeyFromHex } from '../signing/rfc8032.ts';
import { cosignatureTime, noteBody, signatureLine } from './c2sp-checkpoint.ts';
import type { WitnessStatus } from '../kernel/result-log-port.ts';
import type { Witness } from './witness-list.ts';

/**
 * The log's side of C2SP tlog-witness: each checkpoint the result log signs is submitted to the
 * configured witnesses (add-checkpoint, with a consistency proof from the size the witness last
 * cosigned), and the cosignatures they return, once verified with their keys, are served with the
 * checkpoint. A witness cosigns a tree only if it is consistent with every tree of this log it
 * cosigned before, so a client that requires witnesses' cosignatures cannot be shown a history
 * that differs from the one everyone else is shown (a split view).
 *
 * Witnessing never holds a paid call or a checkpoint: a witness that is down, slow or refuses
 * leaves the checkpoint with the log's own signatures, and says why in `GET /v1/log`.
 */
export interface CheckpointToWitness {
  tree_size: number;
  /** The signed note, as the log signed it. */
  note: string;
}


export interface Witnessing {
  /** Submits the checkpoint to every witness (in the background; a newer one replaces a waiting one). */
  submit(checkpoint: CheckpointToWitness): void;
  /** The verified cosignature lines (each ending in a newline) of witnesses for the tree of this size. */
  cosignatures(treeSize: number): string[];
  status(): WitnessStatus[];
  /** Resolves once no submission is in flight (tests, and a stop). */
  settled(): Promise<void>;
  stop(): void;
}

export interface WitnessingOptions {
  /** The RFC 6962 consistency proof from `first` to `second` leaves of the log. */
  consistencyProof(first: number, second: number): Uint8Array[];
  log: Pick<Logger, 'info' | 'warn' | 'error'>;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** A witness's answer is a few signature lines: anything longer is not read. */
const MAX_ANSWER_BYTES = 64 * 1024;
const DEFAULT_TIMEOUT_MS = 10_000;

/** The body of an add-checkpoint request: the old size, the proof lines, a blank line, the checkpoint. */
export function addCheckpointBody(oldSize: number, proof: readonly Uint8Array[], note: string): string {
  return `old ${oldSize}\n${proof.map((hash) => `${Buffer.from(hash).toString('base64')}\n`).join('')}\n${note}`;
}

/**
 * The witness's cosignature lines over the checkpoint body that verify with its key; lines of
 * other keys are ignored, as the protocol requires. Each is 4 bytes of key id, 8 of timestamp
 * (big-endian seconds) and 64 of Ed25519 signature over "cosignature/v1\ntime <t>\n" + body.
 */
export function verifiedCosignatures(answer: string, witness: Witness, body: string): string[] {
  const key = publicKeyFromHex(witness.publicKey.toString('hex'));
  return answer
    .split('\n')
    .filter((line) => {
      const signature = signatureLine(line);
      return signature?.name === witness.name && cosignatureTime(body, signature.payload, witness.keyId, key) !== undefined;
    })
    .map((line) => `${line}\n`);
}

/** The answer's text, read no further than MAX_ANSWER_BYTES: a witness never makes the log hold more. */
async function boundedText(res: Response): Promise<string> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  if (res.body)
    // Leaving the loop early cancels the stream: the rest is never read.
    for await (const chunk of res.body) {
      length += chunk.length;
      if (length > MAX_ANSWER_BYTES) break;
      chunks.push(chunk);
    }
  if (length > MAX_ANSWER_BYTES) throw new Error(`answered more than ${MAX_ANSWER_BYTES} bytes; a cosignature is a line`);
  return Buffer.concat(chunks).toString('utf8');
}

interface WitnessState {
  witness: Witness;
  /** The size we believe the witness cosigned last: the old size of the next request. */
  knownSize: number;
  cosigned?: { treeSize: number; lines: string[] };
  problem?: string;
  running?: Promise<void>;
  waiting?: CheckpointToWitness;
}

export function startWitnessing(witnesses: readonly Witness[], options: WitnessingOptions): Witnessing {
  const fetchWitness = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const states = witnesses.map((witness): WitnessState => ({ witness, knownSize: 0 }));
  let stopped = false;

  async function post(state: WitnessState, oldSize: number, checkpoint: CheckpointToWitness): Promise<{ status: number; type: string; text: string }> {
    const proof = oldSize === 0 ? [] : options.consistencyProof(oldSize, checkpoint.tree_size);
    const res = await fetchWitness(`${state.witness.submissionUrl}/add-checkpoint`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain; charset=utf-8' },
      body: addCheckpointBody(oldSize, proof, checkpoint.note),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
    return { status: res.status, type: res.headers.get('content-type') ?? '', text: await boundedText(res) };
  }

  /** One checkpoint to one witness: at most one retry, from the size the witness says it holds. */
  async function submitTo(state: WitnessState, checkpoint: CheckpointToWitness): Promise<void> {
    let answer = await post(state, Math.min(state.knownSize, checkpoint.tree_size), checkpoint);
    if (answer.status === 409 && answer.type.startsWith('text/x.tlog.size')) {
      const theirs = Number(answer.text.trim());
      if (!/^(0|[1-9][0-9]*)\n?$/.test(answer.text) || !Number.isSafeInteger(theirs)) throw new Error(`answered 409 without a tree size: ${answer.text.slice(0, 100)}`);
      // A witness that cosigned a larger tree than this log holds has seen another history of it.
      if (theirs > checkpoint.tree_size) {
        options.log.error({ witness: state.witness.name, theirs, ours: checkpoint.tree_size }, 'a witness cosigned a larger tree of this log than the log holds: another history of the log exists, or the log lost results; run the audit');
        throw new Error(`the witness cosigned a tree of ${theirs} leaves, larger than this log's ${checkpoint.tree_size}`);
      }
      state.knownSize = theirs;
      answer = await post(state, theirs, checkpoint);
    }
    if (answer.status !== 200) throw new Error(`answered ${answer.status}: ${answer.text.slice(0, 200).trim()}`);
    const lines = verifiedCosignatures(answer.text, state.witness, noteBody(checkpoint.note));
    if (lines.length === 0) throw new Error('answered 200 without a cosignature that verifies with its key');
    state.knownSize = checkpoint.tree_size;
    state.cosigned = { treeSize: checkpoint.tree_size, lines };
    state.problem = undefined;
  }

  function run(state: WitnessState): void {
    const next = state.waiting;
    if (!next || state.running || stopped) return;
    state.waiting = undefined;
    state.running = submitTo(state, next)
      .catch((err: Error) => {
        state.problem = `tree of ${next.tree_size} leaves not cosigned: ${err.message}`;
        options.log.warn({ witness: state.witness.name, tree_size: next.tree_size, error: err.message }, 'a witness did not cosign the checkpoint; the next checkpoint is submitted again');
      })
      .finally(() => {
        state.running = undefined;
        run(state);
      });
  }

  return {
    submit(checkpoint) {
      for (const state of states) {
        state.waiting = checkpoint;
        run(state);
      }
    },
    cosignatures(treeSize) {
      return states.flatMap((state) => (state.cosigned?.treeSize === treeSize ? state.cosigned.lines : []));
    },
    status() {
      return states.map((state) => ({
        name: state.witness.name,
        submission_url: state.witness.submissionUrl,
        cosigned_size: state.cosigned?.treeSize ?? null,
        ...(state.problem ? { problem: state.problem } : {}),
      }));
    },
    async settled() {
      while (states.some((state) => state.running)) await Promise.all(states.map((state) => state.running));
    },
    stop() {
      stopped = true;
    },
  };
}
