import { execFileSync } from 'node:child_process';

/** A python3 that has `cryptography` (Debian's python3-cryptography), or undefined. */
export function pythonWithCryptography(): string | undefined {
  for (const candidate of [process.env['PYTHON'], 'python3', '/usr/bin/python3'].filter((c): c is string => Boolean(c))) {
    try {
      execFileSync(candidate, ['-c', 'import cryptography'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // try the next one
    }
  }
  return undefined;
}
