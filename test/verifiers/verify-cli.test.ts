import { spawnSync } from 'node:child_process';
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
});
