import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { JsonValue } from '../signing/rfc8785.ts';

/** A projection's progress and state, saved together so that one never runs ahead of the other. */
export interface ProjectionCheckpoint {
  name: string;
  version: number;
  /** Last global position folded into `state`; undefined before the first event. */
  position: bigint | undefined;
  state: JsonValue;
}

export interface CheckpointStore {
  load(name: string): Promise<ProjectionCheckpoint | undefined>;
  save(checkpoint: ProjectionCheckpoint): Promise<void>;
  remove(name: string): Promise<void>;
}

const storedSchema = z.object({
  name: z.string(),
  version: z.number().int(),
  position: z.string().regex(/^\d+$/).nullable(),
  state: z.json(),
});

/** Checkpoints that live as long as the process: for tests, and beside EventStoreDB. */
export function createMemoryCheckpointStore(): CheckpointStore {
  const saved = new Map<string, string>();
  return {
    load: async (name) => {
      const text = saved.get(name);
      return text === undefined ? undefined : parse(text);
    },
    save: async (checkpoint) => {
      saved.set(checkpoint.name, serialize(checkpoint));
    },
    remove: async (name) => {
      saved.delete(name);
    },
  };
}

/**
 * One file per projection in `dir` (DATA_DIR/projections beside the file log), replaced
 * atomically: written and synced under a temporary name, then renamed over the old one.
 */
export function createFileCheckpointStore(dir: string): CheckpointStore {
  const pathOf = (name: string) => join(dir, `${encodeURIComponent(name)}.checkpoint.json`);
  return {
    async load(name) {
      let text: string;
      try {
        text = await readFile(pathOf(name), 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
      return parse(text);
    },
    async save(checkpoint) {
      await mkdir(dir, { recursive: true });
      const path = pathOf(checkpoint.name);
      const temporary = `${path}.${randomUUID()}.tmp`;
      const handle = await open(temporary, 'w');
      try {
        await handle.writeFile(serialize(checkpoint));
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, path);
    },
    async remove(name) {
      await unlink(pathOf(name)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    },
  };
}

function serialize(c: ProjectionCheckpoint): string {
  return JSON.stringify({ name: c.name, version: c.version, position: c.position === undefined ? null : String(c.position), state: c.state });
}

/** An unreadable checkpoint is not fatal: the projection rebuilds from zero. */
function parse(text: string): ProjectionCheckpoint | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = storedSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const { name, version, position, state } = parsed.data;
  return { name, version, position: position === null ? undefined : BigInt(position), state: state as JsonValue };
}
