import { readFileSync } from 'node:fs';

export interface SpecRoute {
  method: 'GET' | 'POST';
  path: string;
}

/**
 * Every method and path the interface specification names: its endpoint tables (a row may list
 * several paths), its list of public-key routes, and the free routes named in running text.
 */
export function routesFromSpec(specText: string): SpecRoute[] {
  const found = new Map<string, SpecRoute>();
  const add = (method: string, path: string) => {
    const clean = path.trim().replace(/[.,;]$/, '');
    if (!clean.startsWith('/')) return;
    found.set(`${method} ${clean}`, { method: method as SpecRoute['method'], path: clean });
  };
  for (const line of specText.split('\n')) {
    const row = /^\|\s*(GET|POST)\s*\|\s*([^|]+)\|/.exec(line);
    if (row) for (const path of row[2]!.split(',')) add(row[1]!, path);
    const keyRoute = /^- (\/v1\/\S+\/public-key)\s*$/.exec(line);
    if (keyRoute) add('GET', keyRoute[1]!);
    if (!row) for (const m of line.matchAll(/\b(GET|POST) (\/v1\/[\w/{}.-]+)/g)) add(m[1]!, m[2]!);
  }
  return [...found.values()];
}

export function readSpec(): string {
  return readFileSync(new URL('../../docs/spec/service-interface.md', import.meta.url), 'utf8');
}

/** A concrete URL path for a spec path: template parameters get a sample value. */
export const concretePath = (path: string) => path.replace(/\{[^}]+\}/g, 'sample-id');
export const openApiPath = (path: string) => path;
