import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { sha256Hex } from '../../../signing/hash.ts';
import { sliceWholeCharacters } from '../../../kernel/whole-characters.ts';

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

/** A document the operator added: searched beside the library, cited by its file and digest. */
export interface OperatorDocument {
  id: string;
  title: string;
  text: string;
  file: string;
  sha256: string;
}

const OPERATOR_FILE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,120}\.(md|txt)$/;
const MAX_OPERATOR_FILE_BYTES = 1024 * 1024;
const MAX_OPERATOR_FILES = 200;

/**
 * The .md and .txt files of the operator's directory (not its subdirectories), by name, each up
 * to 1 MiB and at most 200: read once, so a change takes a restart, and every record names the
 * files and digests it searched. Anything else in the directory is ignored.
 */
export function readOperatorDocuments(dir: string): OperatorDocument[] {
  return readdirSync(dir)
    .filter((name) => OPERATOR_FILE.test(name))
    .sort()
    .slice(0, MAX_OPERATOR_FILES)
    .flatMap((name) => {
      const path = join(dir, name);
      const info = statSync(path);
      if (!info.isFile() || info.size > MAX_OPERATOR_FILE_BYTES) return [];
      const bytes = readFileSync(path);
      const text = bytes.toString('utf8');
      const firstLine = text.split('\n').find((l) => l.trim() !== '')?.replace(/^#+\s*/, '').trim() ?? name;
      return [{ id: `operator:${name}`, title: sliceWholeCharacters(firstLine, 200), text, file: name, sha256: sha256Hex(bytes) }];
    });
}

const operatorCache = new Map<string, OperatorDocument[]>();
export function operatorDocumentsOf(dir: string | undefined): OperatorDocument[] {
  if (dir === undefined) return [];
  let docs = operatorCache.get(dir);
  if (!docs) {
    docs = readOperatorDocuments(dir);
    operatorCache.set(dir, docs);
  }
  return docs;
}
