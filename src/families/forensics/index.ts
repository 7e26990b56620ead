import { defineFamily } from '../../kernel/operation.ts';
import { c2paVerify } from './c2pa-verify/operation.ts';
import { evidenceIngest } from './evidence-ingest/operation.ts';
import { evidenceQuery } from './evidence-query/operation.ts';
import { signedSnapshot } from './signed-snapshot/operation.ts';

/** Forensics and Evidence: one line per operation (docs/adding-an-operation.md). */
export const forensicsFamily = defineFamily('forensics', [...c2paVerify, ...signedSnapshot, ...evidenceIngest, ...evidenceQuery]);
