import { mkdir, open, readFile, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { EventLogger } from '../../../events/file-log/logger.ts';
import { createFileCheckpointStore, type CheckpointStore } from '../../../projections/checkpoint-store.ts';

/** One audit of the corpus as its file keeps it: where it is in the log, its leaf hash and its defects. */
export interface SavedEntry {
  stream: string;
  revision: bigint;
  leafHash: Uint8Array;
  defects: readonly string[];
}

/** What a start finds: the entries saved, and the log position they cover (the next read starts after it). */
export interface SavedCorpus {
  entries: SavedEntry[];
  position: bigint | undefined;
}

const NAME = 'bureau-corpus';
/** Bumped when the lines below change meaning: a file of another version is emptied and the corpus folded again. */
const VERSION = 1;

const lineSchema = z.tuple([z.string().min(1), z.string().regex(/^\d+$/), z.string().regex(/^[0-9a-f]{64}$/), z.array(z.string())]);
const checkpointState = z.object({ entries: z.number().int().min(0) });

/** One line an audit: [stream, revision, leaf hash in hex, defects]. */
function lineOf(entry: SavedEntry): string {
  return `${JSON.stringify([entry.stream, entry.revision.toString(), Buffer.from(entry.leafHash).toString('hex'), entry.defects])}\n`;
}

function entryOf(line: string): SavedEntry | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return undefined;
  }
  const fields = lineSchema.safeParse(parsed);
  if (!fields.success) return undefined;
  const [stream, revision, leafHash, defects] = fields.data;
  return { stream, revision: BigInt(revision), leafHash: Buffer.from(leafHash, 'hex'), defects };
}

/**
 * The corpus kept beside the log (DATA_DIR/projections), so that a start reads the audits it
 * holds and then only the events after its checkpoint, instead of the whole log: at a million
 * events that read took seconds on the first corpus request after every start.
 *
 * Two files: the entries, one JSON line an audit, only ever appended; and a checkpoint
 * (checkpoint-store.ts: written and synced under a temporary name, then renamed) holding the
 * log position read up to and how many lines it covers. A save appends the new lines and
 * syncs them before the checkpoint that counts them is written, so a checkpoint never counts a
 * line a crash could lose. Lines past the checkpoint's count (written, then a crash before the
 * checkpoint) are cut at the next start and folded again from the log, which holds them.
 *
 * It is a cache of the log: files that do not agree with each other or with the log (corpus.ts
 * checks the last audit and the log's end) are emptied and the corpus folded again from the start.
 */
export class CorpusFile {
  /** Lines of the audits folded in and not yet written and synced, oldest first. */
  private unsaved: string[] = [];
  /** The log position folded up to: the lines above cover every audit up to it. */
  private foldedPosition: bigint | undefined;
  /** The position the checkpoint on disk holds: a save with no new lines and the same position writes nothing. */
  private savedPosition: bigint | undefined;
  private savedLines: number;
  /** The length of the lines written and synced: where a failed append is cut back to. */
  private savedBytes: number;
  /** A failed append may have left part of its lines: cut back to savedBytes before the next. */
  private tailUncertain = false;
  private saving: Promise<void> = Promise.resolve();

  private constructor(
    private readonly path: string,
    private readonly checkpoints: CheckpointStore,
    saved: SavedCorpus & { bytes: number },
    private readonly log: EventLogger,
  ) {
    this.savedLines = saved.entries.length;
    this.savedBytes = saved.bytes;
    this.foldedPosition = saved.position;
    this.savedPosition = saved.position;
  }

  /** Opens the corpus files in `dir`, and reads what they hold (nothing, for a first start or files that do not agree). */
  static async open(dir: string, log: EventLogger): Promise<{ file: CorpusFile; saved: SavedCorpus }> {
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${NAME}.entries`);
    const checkpoints = createFileCheckpointStore(dir);
    const saved = await readSaved(path, checkpoints, log);
    return { file: new CorpusFile(path, checkpoints, saved, log), saved: { entries: saved.entries, position: saved.position } };
  }

  /** Empties both files: the corpus is folded again from the log's start. */
  async discard(): Promise<void> {
    await this.saving;
    this.unsaved = [];
    this.foldedPosition = undefined;
    this.savedPosition = undefined;
    this.savedLines = 0;
    this.savedBytes = 0;
    this.tailUncertain = false;
    await resetFiles(this.path, this.checkpoints);
  }

  /** An entry folded in, saved with the next save. */
  add(entry: SavedEntry): void {
    this.unsaved.push(lineOf(entry));
  }

  /** The log position folded up to, saved with the next save. */
  advance(position: bigint): void {
    this.foldedPosition = position;
  }

  /**
   * Saves what was folded since the last save, if anything was. Saves run one after another, and
   * each takes the lines and the position as they are when it runs, so a checkpoint always counts
   * exactly the lines of the audits up to its position, in log order, whatever failed before it.
   */
  save(): Promise<void> {
    this.saving = this.saving.then(() => this.write());
    return this.saving;
  }

  private async write(): Promise<void> {
    const count = this.unsaved.length;
    const position = this.foldedPosition;
    if (count === 0 && position === this.savedPosition) return;
    try {
      if (count > 0) {
        const text = Buffer.from(this.unsaved.slice(0, count).join(''));
        const handle = await open(this.path, 'a');
        try {
          if (this.tailUncertain) await handle.truncate(this.savedBytes);
          this.tailUncertain = true;
          await handle.writeFile(text);
          await handle.datasync();
        } finally {
          await handle.close();
        }
        this.tailUncertain = false;
        this.unsaved.splice(0, count);
        this.savedLines += count;
        this.savedBytes += text.length;
      }
      await this.checkpoints.save({ name: NAME, version: VERSION, position, state: { entries: this.savedLines } });
      this.savedPosition = position;
    } catch (err) {
      // Kept for the next save: a full disk costs a longer read at the next start, nothing else.
      this.log.warn({ error: (err as Error).message }, 'bureau corpus: not saved; the next save tries again, and a start meanwhile reads the log from the last save');
    }
  }
}

async function readSaved(path: string, checkpoints: CheckpointStore, log: EventLogger): Promise<SavedCorpus & { bytes: number }> {
  const empty = { entries: [], position: undefined, bytes: 0 };
  const checkpoint = await checkpoints.load(NAME).catch(() => undefined);
  const counted = checkpoint?.version === VERSION ? checkpointState.safeParse(checkpoint.state) : undefined;
  let file = Buffer.alloc(0);
  try {
    file = await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (!checkpoint || !counted?.success) {
    if (checkpoint || file.length > 0) log.info({ checkpoint: checkpoint ? `version ${checkpoint.version}` : 'none' }, 'bureau corpus: its saved files are not of this version; folding the corpus from the log');
    await resetFiles(path, checkpoints);
    return empty;
  }
  const entries: SavedEntry[] = [];
  let bytes = 0;
  while (entries.length < counted.data.entries) {
    const end = file.indexOf(0x0a, bytes);
    const entry = end < 0 ? undefined : entryOf(file.toString('utf8', bytes, end));
    if (!entry) break;
    entries.push(entry);
    bytes = end + 1;
  }
  if (entries.length < counted.data.entries) {
    log.warn({ saved: counted.data.entries, read: entries.length }, 'bureau corpus: its entries file holds fewer audits than its checkpoint counts; folding the corpus from the log');
    await resetFiles(path, checkpoints);
    return empty;
  }
  // Lines past the checkpoint were written before a crash it did not see: folded again from the log.
  if (bytes < file.length) await truncate(path, bytes);
  return { entries, position: checkpoint.position, bytes };
}
async function resetFiles(path: string, checkpoints: CheckpointStore): Promise<void> {
  await checkpoints.remove(NAME);
  await truncate(path, 0).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}
