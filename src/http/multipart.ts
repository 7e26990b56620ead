import type { EventEmitter } from 'node:events';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type formidable from 'formidable';
import type { errors as FormidableErrors } from 'formidable';
import type { Context } from 'koa';
import { MAX_MULTIPART_BYTES } from '../kernel/limits.ts';
import { HttpProblem, validationProblem } from './problem.ts';
import { UPLOAD_DIR_PREFIX } from './stale-uploads.ts';

/** One uploaded file, as an operation's input sees it. `path` lives only as long as the request. */
export interface UploadedFile {
  sha256: string;
  size: number;
  media_type: string | null;
  filename: string | null;
  path: string;
}

export interface MultipartInput {
  /** Text fields and files by field name: what the operation's schema validates. */
  input: Record<string, unknown>;
  /** The same, with each file described by its content only: what binds a payment to the request. */
  hashable: Record<string, unknown>;
}

const MAX_FIELDS = 32;
/** Upload directories being removed: a stop waits for them (uploadsRemoved). */
const removals = new Set<Promise<void>>();

/** Resolves once every upload directory whose request has ended is removed: a stop awaits it before the process exits. */
export async function uploadsRemoved(): Promise<void> {
  while (removals.size > 0) await Promise.all(removals);
}
const MAX_FIELD_BYTES = 64 * 1024;

/**
 * Reads a multipart/form-data body for the one kind of route that takes it, streaming each file
 * to a temp directory of this request alone (SHA-256 computed on the way) within the size limit.
 * The directory is removed when the response is finished or the client goes away, whatever the
 * outcome: a quote, a refusal, an error, a paid answer or an abort. Nothing else in the service
 * parses multipart, so no other route ever writes an upload to disk.
 */
export async function readMultipart(ctx: Context, maxBytes = MAX_MULTIPART_BYTES): Promise<MultipartInput> {
  if (!ctx.is('multipart/form-data')) throw validationProblem([{ path: '(body)', message: 'a multipart/form-data body is required' }]);
  const dir = await mkdtemp(join(tmpdir(), UPLOAD_DIR_PREFIX)).catch((err: unknown) => Promise.reject(storageProblem(err) ?? err));
  // ENOTEMPTY/EBUSY are retried: on an abort, the parser may still be closing a file in the directory.
  const removeDir = () => {
    const removal = rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 25 }).catch(() => undefined);
    removals.add(removal);
    void removal.finally(() => removals.delete(removal));
  };
  // 'close' fires once the response is sent or the connection is lost, after every await below.
  ctx.res.once('close', removeDir);
  // The parser loads with the first upload: only one route takes multipart.
  const { default: createForm, errors: formidableErrors } = await import('formidable');
  const form = createForm({
    uploadDir: dir,
    keepExtensions: false,
    hashAlgorithm: 'sha256',
    maxFiles: 4,
    maxFileSize: maxBytes,
    maxTotalFileSize: maxBytes,
    maxFields: MAX_FIELDS,
    maxFieldsSize: MAX_FIELD_BYTES,
    allowEmptyFiles: false,
  });
  // formidable ignores a file's write error once the whole body has been read (its _error returns
  // when `ended`), and resolves with the file cut short: on a full temp disk, under load, the
  // caller was told its file was damaged. The error is taken here, and the sizes checked below.
  let writeError: unknown;
  // The file is formidable's PersistentFile, an EventEmitter its types do not declare.
  form.on('fileBegin', (_name, file) => (file as unknown as EventEmitter).on('error', (err: unknown) => (writeError ??= err)));
  let fields: formidable.Fields;
  let files: formidable.Files;
  try {
    [fields, files] = await form.parse(ctx.req);
    await checkStoredWhole(Object.values(files).flatMap((uploaded) => uploaded ?? []), () => writeError);
  } catch (err) {
    // After an abort the parser settles late, possibly after 'close': sweep again once it has.
    removeDir();
    throw multipartProblem(err, formidableErrors);
  }
  const input: Record<string, unknown> = {};
  const hashable: Record<string, unknown> = {};
  for (const [name, values] of Object.entries(fields)) {
    const value = values?.length === 1 ? values[0] : values;
    input[name] = value;
    hashable[name] = value;
  }
  for (const [name, uploaded] of Object.entries(files)) {
    const file = uploaded?.[0];
    if (!file || uploaded!.length > 1) throw validationProblem([{ path: name, message: 'must be exactly one file' }]);
    const described: UploadedFile = { sha256: String(file.hash), size: file.size, media_type: file.mimetype ?? null, filename: file.originalFilename ?? null, path: file.filepath };
    input[name] = described;
    const { path: _path, ...content } = described;
    hashable[name] = content;
  }
  return { input, hashable };
}

/** Every file is on disk whole, or the disk's error (or a short count) is thrown. */
async function checkStoredWhole(files: readonly formidable.File[], writeError: () => unknown): Promise<void> {
  for (const file of files) {
    const stored = await stat(file.filepath).then((s) => s.size, () => -1);
    if (writeError() !== undefined) throw writeError();
    if (stored !== file.size) throw Object.assign(new Error(`${stored < 0 ? 0 : stored} of ${file.size} bytes of the upload were stored`), { code: 'EIO' });
  }
}

/** Errors of the disk the uploads go to (full, failing, out of handles, or a temp directory missing or closed to the service): its trouble, not the caller's body. */
const STORAGE_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EIO', 'EROFS', 'EMFILE', 'ENFILE', 'ENOENT', 'ENOTDIR', 'EACCES', 'EPERM']);

function storageProblem(err: unknown): HttpProblem | undefined {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string' || !STORAGE_ERRORS.has(code)) return undefined;
  return new HttpProblem(503, 'upload_storage_unavailable', `the service cannot store the upload right now (${code}); nothing was charged, retry later`, {}, { 'Retry-After': '5' });
}

function multipartProblem(err: unknown, formidableErrors: typeof FormidableErrors): HttpProblem {
  const storage = storageProblem(err);
  if (storage) return storage;
  const code = (err as { code?: unknown }).code;
  const tooLarge = [formidableErrors.biggerThanMaxFileSize, formidableErrors.biggerThanTotalMaxFileSize, formidableErrors.maxFieldsSizeExceeded].includes(code as number);
  if (tooLarge) return new HttpProblem(413, 'payload_too_large', `the upload exceeds the size limit (${MAX_MULTIPART_BYTES} bytes of files)`);
  return validationProblem([{ path: '(body)', message: `malformed multipart body: ${(err as Error).message}` }]);
}
