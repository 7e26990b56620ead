import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMultipart, uploadsRemoved, type UploadedFile } from '../../src/http/multipart.ts';
import { errors } from '../../src/http/middleware/errors.ts';
import { createLogger } from '../../src/logger.ts';
import { loadSettings } from '../../src/config.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { mountSmallDisk } from '../support/small-disk.ts';

// Every temp file of this test process goes here, so counting it sees only this file's uploads.
const uploadsDir = mkdtempSync(join(tmpdir(), 'attest-uploads-test-'));
process.env['TMPDIR'] = uploadsDir;

const entries = () => readdirSync(uploadsDir);
afterAll(() => rmSync(uploadsDir, { recursive: true, force: true }));
const multipartBody = (boundary: string, fileBytes: Buffer) =>
  Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="invoice.png"\r\nContent-Type: image/png\r\n\r\n`),
    fileBytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
const upload = (url: string, fileBytes: Buffer) => {
  const boundary = 'test-boundary-7c1f';
  return fetch(url, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body: multipartBody(boundary, fileBytes) });
};

describe('uploads never outlive their request', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  it('hostile multipart posts to routes that take no files write nothing to disk', async () => {
    const before = entries();
    const oneMiB = Buffer.alloc(1024 * 1024, 7);
    const answers = await Promise.all([
      upload(`${service.url}/v1/no-such-route`, oneMiB),
      upload(`${service.url}/v1/verify-catalog/recheck`, oneMiB),
      upload(`${service.url}/v1/veritrack/attest`, oneMiB),
      upload(`${service.url}/v1/veritrack/attest`, Buffer.alloc(11 * 1024 * 1024, 1)),
    ]);
    expect(answers.map((r) => r.status).every((s) => s < 500 || s === 501)).toBe(true);
    expect(entries()).toEqual(before);
  });

  it('an upload refused before the quote (not an image) leaves nothing behind once answered', async () => {
    const before = entries();
    const answer = await upload(`${service.url}/v1/invoice-ocr`, Buffer.alloc(1024 * 1024, 7));
    expect(answer.status).toBe(422);
    for (let i = 0; i < 40 && entries().length !== before.length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(entries()).toEqual(before);
  });
});

describe('readMultipart, for the operations that take files', () => {
  let server: Server;
  let url: string;
  const seen: UploadedFile[] = [];

  beforeAll(async () => {
    const app = new Koa();
    app.silent = true;
    app.use(errors(createLogger(loadSettings({ LOG_LEVEL: 'silent', DATA_DIR: uploadsDir }))));
    app.use(async (ctx) => {
      const { input, hashable } = await readMultipart(ctx, 2 * 1024 * 1024);
      const file = input['file'] as UploadedFile;
      seen.push(file);
      ctx.body = { exists: existsSync(file.path), bytes: readFileSync(file.path).length, hashable };
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  // Removal is asynchronous after the answer; on a loaded machine it may take a while.
  const settled = async () => {
    for (let waited = 0; waited < 5000 && entries().length > 0; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  };

  it('streams the file to a directory of its own, hashes it, and removes it after the answer', async () => {
    const bytes = Buffer.from('%PNG fake invoice bytes');
    const res = await upload(url, bytes);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { exists: boolean; bytes: number; hashable: { file: Record<string, unknown> } };
    expect(body.exists).toBe(true);
    expect(body.bytes).toBe(bytes.length);
    // What binds a payment to the request describes the content, never the temp path.
    expect(body.hashable.file).toEqual({ sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, media_type: 'image/png', filename: 'invoice.png' });
    await settled();
    expect(existsSync(seen.at(-1)!.path)).toBe(false);
    expect(entries()).toEqual([]);
  });

  it('answers 413 above the limit, and leaves nothing behind', async () => {
    const res = await upload(url, Buffer.alloc(3 * 1024 * 1024, 1));
    expect(res.status).toBe(413);
    await settled();
    expect(entries()).toEqual([]);
  });

  it('lets a stop wait for the removal: once the server is closed and uploadsRemoved resolves, nothing is left', async () => {
    const app = new Koa();
    app.silent = true;
    app.use(async (ctx) => {
      await readMultipart(ctx, 4 * 1024 * 1024);
      ctx.body = 'read';
    });
    const stopping = createServer(app.callback());
    await new Promise<void>((resolve) => stopping.listen(0, '127.0.0.1', resolve));
    const res = await upload(`http://127.0.0.1:${(stopping.address() as AddressInfo).port}/`, Buffer.alloc(3 * 1024 * 1024, 5));
    expect(await res.text()).toBe('read');
    await new Promise<void>((resolve) => stopping.close(() => resolve()));
    await uploadsRemoved();
    expect(entries()).toEqual([]);
  });

  it('leaves nothing behind when the client goes away mid-upload', async () => {
    const boundary = 'abort-boundary';
    await new Promise<void>((resolve) => {
      const req = request(url, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(2 * 1024 * 1024) } });
      req.on('error', () => resolve());
      req.write(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`));
      req.write(Buffer.alloc(256 * 1024, 3));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 100);
    });
    await settled();
    expect(entries()).toEqual([]);
  });
});

/** A 256 KiB tmpfs for the temp files, mounted by this test (as root); skipped, saying why, elsewhere. */
const smallTmp = mountSmallDisk('full-temp-disk-upload', '256k', dirname(uploadsDir));
afterAll(() => smallTmp.remove());

describe.skipIf(!smallTmp.mounted)('an upload the temp disk cannot hold', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  it('is the service\'s trouble, not the caller\'s: 503 with Retry-After, nothing charged, nothing left behind', async () => {
    process.env['TMPDIR'] = smallTmp.path;
    try {
      const answer = await upload(`${service.url}/v1/invoice-ocr`, Buffer.alloc(1024 * 1024, 7));
      expect(answer.status, await answer.clone().text()).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('5');
      expect(answer.headers.get('payment-required')).toBeNull();
      expect(await answer.json()).toMatchObject({ error: 'upload_storage_unavailable', message: expect.stringMatching(/ENOSPC.*nothing was charged/) });
      for (let i = 0; i < 40 && readdirSync(smallTmp.path).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(readdirSync(smallTmp.path)).toEqual([]);
    } finally {
      process.env['TMPDIR'] = uploadsDir;
    }
  });

  it('is 503 too when the disk is full before the upload comes: the parser has read the whole body when the write fails, and kept the file cut short', async () => {
    const filler = smallTmp.fill();
    process.env['TMPDIR'] = smallTmp.path;
    try {
      // A PNG signature: whole, the file would reach the image checks; cut short on disk, it was answered 422 as not a PNG.
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(32 * 1024, 9)]);
      const answer = await upload(`${service.url}/v1/invoice-ocr`, png);
      const body = await answer.text();
      expect(answer.status, body).toBe(503);
      expect(JSON.parse(body)).toMatchObject({ error: 'upload_storage_unavailable', message: expect.stringMatching(/nothing was charged/) });
    } finally {
      process.env['TMPDIR'] = uploadsDir;
      rmSync(filler, { force: true });
    }
  });
});

describe('a temp directory that is missing or not a directory', () => {
  it('is the service\'s trouble too: 503 upload_storage_unavailable before any quote, never a 500', async () => {
    const service = await startTestService();
    try {
      for (const [dir, code] of [[join(uploadsDir, 'missing'), 'ENOENT'], [join(uploadsDir, 'a-file'), 'ENOTDIR']] as const) {
        if (code === 'ENOTDIR') writeFileSync(dir, '');
        process.env['TMPDIR'] = dir;
        const answer = await upload(`${service.url}/v1/invoice-ocr`, Buffer.alloc(1024, 7));
        expect(answer.status).toBe(503);
        expect(answer.headers.get('payment-required')).toBeNull();
        expect(await answer.json()).toMatchObject({ error: 'upload_storage_unavailable', message: expect.stringContaining(code) });
      }
    } finally {
      process.env['TMPDIR'] = uploadsDir;
      rmSync(join(uploadsDir, 'a-file'), { force: true });
      await service.stop();
    }
  });
});

describe('a start after a process was killed during uploads', () => {
  it('removes the upload directories it left behind, and only those', async () => {
    const killed = join(uploadsDir, 'attest-upload-killed');
    const live = join(uploadsDir, 'attest-upload-live');
    for (const dir of [killed, live]) {
      mkdirSync(dir);
      writeFileSync(join(dir, 'file'), 'a caller document');
    }
    const twoHoursAgo = (Date.now() - 2 * 3_600_000) / 1000;
    utimesSync(join(killed, 'file'), twoHoursAgo, twoHoursAgo);
    utimesSync(killed, twoHoursAgo, twoHoursAgo);
    const service = await startTestService();
    try {
      for (let i = 0; i < 40 && existsSync(killed); i++) await new Promise((r) => setTimeout(r, 50));
      expect(existsSync(killed)).toBe(false);
      expect(existsSync(join(live, 'file'))).toBe(true);
    } finally {
      await service.stop();
      rmSync(live, { recursive: true, force: true });
    }
  });
});
