import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveAttestationSecret } from '../src/signing/keyring.ts';

const workDir = mkdtempSync(join(tmpdir(), 'attest-keys-cli-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const keys = (...args: string[]) => {
  const { DATA_DIR: _unset, ATTESTATION_SECRET: _unsetToo, ...env } = process.env;
  return spawnSync(process.execPath, ['--import', 'tsx', join('src', 'keys-cli.ts'), ...args], { env, encoding: 'utf8', timeout: 30_000 });
};

describe('npm run keys', () => {
  it('rotates a data directory\'s keys and lists the generations', () => {
    const dataDir = join(workDir, 'data');
    resolveAttestationSecret(undefined, dataDir); // what the service's first start writes
    const rotated = keys('rotate', '--at', '1900000000', '--data-dir', dataDir);
    expect(rotated.status).toBe(0);
    expect(rotated.stdout).toContain('key generation 1 added');
    const listed = keys('list', '--data-dir', dataDir);
    expect(listed.stdout).toContain('generation 1: ');
    expect(listed.stdout).toContain('valid from 1900000000');
    expect(rotated.stderr).toBe('');
  });

  it('answers --help with its usage, and notes a rotation of a directory that holds no first secret', () => {
    for (const flag of ['--help', '-h']) {
      const help = keys(flag);
      expect(help.status).toBe(0);
      expect(help.stdout).toContain('usage: npm run keys -- rotate');
    }
    const dataDir = join(workDir, 'secret-from-environment');
    mkdirSync(dataDir);
    const rotated = keys('rotate', '--data-dir', dataDir);
    expect(rotated.status).toBe(0);
    expect(rotated.stderr).toContain('holds no attestation-secret and ATTESTATION_SECRET is not set here');
  });

  it('says there is no data directory when there is none, and makes none', () => {
    const absent = join(workDir, 'typo');
    for (const command of ['list', 'rotate']) {
      const answer = keys(command, '--data-dir', absent);
      expect(answer.status).toBe(2);
      expect(answer.stderr).toContain(`there is no data directory at ${absent}`);
    }
    expect(existsSync(absent)).toBe(false);
  });
});
