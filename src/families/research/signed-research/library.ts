import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { sha256Hex } from '../../../signing/hash.ts';

const entrySchema = z.object({
  id: z.string().regex(/^[a-z0-9_]+$/),
  authors: z.array(z.string().min(1)).min(1),
  year: z.number().int().min(1900).max(2100),
  title: z.string().min(1),
  venue: z.string().min(1),
  volume: z.number().int().nullable(),
  issue: z.number().int().nullable(),
  pages: z.string().regex(/^\d+-\d+$/).nullable(),
  doi: z.string().regex(/^10\.\d{4,9}\/\S+$/, 'a DOI is 10.<registrant>/<suffix>').nullable(),
  topics: z.array(z.string().min(1)).min(1),
  summary: z.string().min(40),
  checked_against: z.url(),
});
export const librarySchema = z.object({
  name: z.string(),
  version: z.string(),
  data_date: z.iso.date(),
  description: z.string(),
  topics: z.array(z.string()),
  entries: z.array(entrySchema).min(1),
});
export type Library = z.infer<typeof librarySchema>;
export type LibraryEntry = Library['entries'][number];

/** The library as shipped; its SHA-256 is of these exact bytes, and every record names it. */
export const LIBRARY_BYTES = readFileSync(new URL('./data/quant-research-library.json', import.meta.url));
export const LIBRARY: Library = librarySchema.parse(JSON.parse(LIBRARY_BYTES.toString('utf8')));
export const LIBRARY_REF = { name: LIBRARY.name, version: LIBRARY.version, data_date: LIBRARY.data_date, sha256: sha256Hex(LIBRARY_BYTES), entries: LIBRARY.entries.length };
