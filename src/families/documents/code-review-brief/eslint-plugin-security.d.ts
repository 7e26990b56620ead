// The package ships no types; it is an ESLint plugin object like any other.
declare module 'eslint-plugin-security' {
  import type { ESLint } from 'eslint';
  const plugin: ESLint.Plugin;
  export default plugin;
}
