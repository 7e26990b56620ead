import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const verify = (...args: string[]) => spawnSync(process.execPath, ['verifiers/cli/verify.mjs', ...args], { encoding: 'utf8', timeout: 30_000 });

describe('npm run verify (the offline bundle verifier)', () => {
  it('answers --help and -h with its usage instead of reading a file of that name', () => {
    for (const flag of ['--help', '-h']) {
      const answer = verify(flag);
      expect(answer.status).toBe(0);
      expect(answer.stdout).toContain('usage: npm run verify -- bundle.json');
      expect(answer.stderr).toBe('');
    }
  });

  it('answers no file with its usage and exit code 2', () => {
    const answer = verify();
    expect(answer.status).toBe(2);
    expect(answer.stderr).toContain('usage: npm run verify -- bundle.json');
  });

  it('tells a verifier who passes the paid answer where its bundle is', () => {
    const dir = mkdtempSync(join(tmpdir(), 'verify-cli-'));
    try {
      const answer = join(dir, 'answer.json');
      writeFileSync(answer, JSON.stringify({ kind: 'model-eval', attestedAt: 1_767_225_600, claim: {}, sha256: 'ab'.repeat(32), ed25519Sig: 'cd'.repeat(64) }));
      const verdict = verify(answer);
      expect(verdict.status).toBe(1);
      expect(verdict.stdout).toContain('FAIL format: not an attestation-result-bundle/v1 document (a paid answer is not a bundle: save the result\'s bundle from GET /v1/log/result/<sha256>)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
