// Bundles the compiled service (dist/main.js and everything it imports, dependencies included)
// into dist/bundle/, which `npm start` runs: one file to load at start instead of some 460
// modules, each resolved, read and compiled on its own. What the service imports lazily stays
// lazy: a module of its own goes in a chunk of its own, a package is left to Node, each loaded
// at first use. Plain JavaScript: it runs before anything else.
//
// Nothing changes meaning in the bundle. A module that finds files beside itself (data sets,
// engine and worker scripts, a package's own files) asks `import.meta.url`, `__dirname` or
// `__filename`; in the bundle each of these still names the module's own file in dist/ or
// node_modules/, where those files are. Workers and engine threads therefore run the unbundled
// modules of dist/, as they did before.
import { readFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { createRequire } from 'node:module';

/** Packages with native code: loaded from node_modules/ as they are, never bundled. */
const NATIVE_PACKAGES = ['lmdb', 'msgpackr-extract', 'sodium-native', 'secp256k1'];

/** Where the bundle goes, under dist/. */
export const BUNDLE_DIRECTORY = 'bundle';

const MODULE_URL = /\bimport\.meta\.url\b/g;
const COMMONJS_PATH = /\b__(?:dirname|filename)\b/;
/** A module that declares these itself (an ES module computing them from import.meta.url) keeps its own. */
const DECLARES_PATH = /\b(?:const|let|class|function)\s+__(?:dirname|filename)\b/;

/**
 * A module's own location, as its code asks for it, made from the bundle's location: every
 * output file of the bundle sits in one directory, so one path relative to it serves them all.
 */
const BANNER = [
  "import { createRequire as __bundleCreateRequire } from 'node:module';",
  "import { fileURLToPath as __bundleFileURLToPath } from 'node:url';",
  // Bundled CommonJS requires Node's own modules through this.
  'const require = __bundleCreateRequire(import.meta.url);',
  'const __bundlePath = (relative) => __bundleFileURLToPath(new URL(relative, import.meta.url));',
].join('\n');

/** Rewrites a module's questions about its own location so that they answer as they did unbundled. */
function ownLocationPlugin(outdir) {
  return {
    name: 'own-location',
    setup(build) {
      // A package the service imports lazily is left to Node, loaded at first use as it was
      // unbundled: it costs the start nothing, and Node's own loading gives an ES module's view
      // of a CommonJS package (its named exports), which a split bundle's chunk would not.
      build.onResolve({ filter: /^[^./]/ }, ({ kind, path }) => (kind === 'dynamic-import' ? { path, external: true } : undefined));
      build.onLoad({ filter: /\.[cm]?js$/ }, async ({ path }) => {
        const text = await readFile(path, 'utf8');
        const asksUrl = text.includes('import.meta.url');
        const asksPath = COMMONJS_PATH.test(text) && !DECLARES_PATH.test(text);
        if (!asksUrl && !asksPath) return undefined;
        const fromBundle = (file) => relative(outdir, file).split(sep).join('/');
        let contents = asksUrl ? text.replace(MODULE_URL, `new URL(${JSON.stringify(fromBundle(path))}, import.meta.url).href`) : text;
        if (asksPath) contents = `var __filename = __bundlePath(${JSON.stringify(fromBundle(path))}), __dirname = __bundlePath(${JSON.stringify(fromBundle(dirname(path)))});\n${contents}`;
        return { contents, loader: 'js', resolveDir: dirname(path) };
      });
    },
  };
}

/**
 * Bundles dist/main.js into dist/bundle/main.js (with lazily loaded chunks beside it). Returns
 * false, having written nothing usable, when esbuild is missing; throws what esbuild reports.
 */
export async function bundleService(dist) {
  let esbuild;
  try {
    esbuild = createRequire(import.meta.url)('esbuild');
  } catch {
    return false;
  }
  const outdir = join(dist, BUNDLE_DIRECTORY);
  await esbuild.build({
    entryPoints: [join(dist, 'main.js')],
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    external: NATIVE_PACKAGES,
    banner: { js: BANNER },
    plugins: [ownLocationPlugin(outdir)],
    sourcemap: 'linked',
    logLevel: 'error',
  });
  return true;
}
