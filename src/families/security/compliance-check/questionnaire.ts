import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { sha256Hex } from '../../../signing/hash.ts';
import type { Questionnaire } from './engine.ts';

const schema = z.object({
  name: z.string(),
  version: z.string(),
  data_date: z.iso.date(),
  regulation: z.string(),
  amendments: z.array(z.object({ act: z.string(), status: z.string(), effect: z.string() })),
  answers: z.array(z.string()),
  questions: z.array(z.object({ id: z.string(), group: z.enum(['prohibited', 'annex_i', 'annex_iii', 'derogation', 'transparency', 'gpai', 'deployer']), basis: z.string(), source: z.string().optional(), application_dates_key: z.string().optional(), question: z.string(), keywords: z.array(z.string()).optional() })),
  application_dates: z.record(z.string(), z.record(z.string(), z.string())),
});

/** The published questionnaire, read once; its SHA-256 is of the exact bytes served and shipped. */
export const QUESTIONNAIRE_BYTES = readFileSync(new URL('./data/eu-ai-act-questionnaire.json', import.meta.url));
export const QUESTIONNAIRE: Questionnaire & z.infer<typeof schema> = schema.parse(JSON.parse(QUESTIONNAIRE_BYTES.toString('utf8')));
export const QUESTIONNAIRE_REF = { name: QUESTIONNAIRE.name, version: QUESTIONNAIRE.version, sha256: sha256Hex(QUESTIONNAIRE_BYTES), data_date: QUESTIONNAIRE.data_date };
