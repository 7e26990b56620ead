import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { findSecrets } from './secret-check.ts';

// A made-up token in GitHub's format, with the checksum secretlint's rule checks.
const TOKEN_LINE = 'const token = "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";\n';

describe('the secret check (secretlint) inside a long-running service', () => {
  const rejections: unknown[] = [];
  const collect = (reason: unknown) => void rejections.push(reason);
  afterEach(() => {
    process.off('unhandledRejection', collect);
    rejections.length = 0;
  });

  it("reviews a file whose name holds secretlint's mark separators, and leaves no unhandled rejection that would end the process", async () => {
    process.on('unhandledRejection', collect);
    for (const name of ['a::end||b', '::end', 'x::start', 'src/key.js']) {
      const findings = await findSecrets(name, TOKEN_LINE);
      expect(findings.map((f) => f.file), name).toEqual([name]);
    }
    await sleep(50);
    expect(rejections.map((r) => String(r))).toEqual([]);
  });

  it('leaves nothing in the process-wide performance timeline, however many files it reviews', async () => {
    await findSecrets('warm-up.js', 'const a = 1;\n');
    const before = performance.getEntriesByType('mark').length;
    for (let i = 0; i < 40; i++) await findSecrets(`src/file-${i}.js`, TOKEN_LINE);
    expect(performance.getEntriesByType('mark').length).toBe(before);
  });
});
