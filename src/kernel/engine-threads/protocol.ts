/** What the pool and an engine thread say to each other (structured clones). */
import type { CanonicalRecord } from '../../signing/seal.ts';
import type { RecordText } from '../record-text.ts';

export interface EngineJob {
  id: number;
  /** URL of the module (file:), as the thread imports it. */
  module: string;
  exportName: string;
  args: unknown[];
  /**
   * The value is a command's result: the thread answers the canonical form of its `record` and
   * the record's JSON text (both transferred, not copied) in place of the record itself, so the
   * event loop signs the one without canonicalising, stores and answers the other without
   * serialising, and receives no clone of the record (a quarter of a second for 11 MB).
   */
  canonicalRecord?: true;
}

/** An error as it crosses the thread boundary; a DomainRefusal keeps what makes it one. */
export interface ThrownByEngine {
  name: string;
  message: string;
  stack?: string;
  refusal?: { status: 403 | 409 | 422; error: string; outcome?: string };
}

export type EngineReply = { id: number; ok: true; value: unknown; canonical?: CanonicalRecord; recordText?: RecordText } | { id: number; ok: false; thrown: ThrownByEngine };
