/** The module `name` beside the module at `moduleUrl` (the caller's import.meta.url), as the service runs: .js built, .ts under tsx. */
export function moduleBeside(moduleUrl: string, name: string): URL {
  return new URL(`./${name}${moduleUrl.endsWith('.js') ? '.js' : '.ts'}`, moduleUrl);
}

/**
 * The entry of a worker thread whose script sits beside `moduleUrl` (the caller's
 * import.meta.url) under `name`: the compiled file from dist/, or, where the caller runs as
 * TypeScript under tsx (development, tests), a stub that registers tsx in the worker first,
 * since a worker does not inherit its parent's loader (the worker may then import TypeScript
 * modules of its own, as the engine threads do).
 */
export function workerScript(moduleUrl: string, name: string): URL {
  const script = moduleBeside(moduleUrl, name);
  if (script.pathname.endsWith('.js')) return script;
  const source = `const { register } = await import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}); register(); await import(${JSON.stringify(script.href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(source)}`);
}
