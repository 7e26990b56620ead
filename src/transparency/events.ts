import { z } from 'zod';

/** The log's own stream: its signed checkpoints, one event each, in order. */
export const RESULT_LOG_STREAM = 'result-log';
export const CHECKPOINT_ISSUED = 'CheckpointIssued';

export const checkpointIssuedSchema = z.object({
  origin: z.string(),
  tree_size: z.number().int().min(1),
  root_hash: z.string().regex(/^[0-9a-f]{64}$/),
  issued_at: z.number().int(),
  key_id: z.string().regex(/^[0-9a-f]{16}$/),
  /** The C2SP signed note, exactly as served. */
  note: z.string(),
});
export type CheckpointIssued = z.infer<typeof checkpointIssuedSchema>;
