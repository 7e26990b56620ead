// `npm start`: builds dist/ when src/ changed (scripts/build.mjs), then runs the compiled service
// in this same process. One Node start before /health answers, not two (a pre-start script
// would start Node once to find dist/ up to date, and npm a second shell for the service).
// It runs the bundle of dist/ (scripts/bundle.mjs), which loads in about two thirds of the time
// the modules of dist/ take; those run where no bundle could be made.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { BUNDLED_ENTRY, build } from './build.mjs';

const status = await build();
if (status !== 0) process.exit(status);
await import(existsSync(BUNDLED_ENTRY) ? pathToFileURL(BUNDLED_ENTRY).href : '../dist/main.js');
