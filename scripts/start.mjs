// `npm start`: builds dist/ when src/ changed (scripts/build.mjs), then runs the compiled service
// in this same process. One Node start before /health answers, not two (a pre-start script
// would start Node once to find dist/ up to date, and npm a second shell for the service).
import { build } from './build.mjs';

const status = build();
if (status !== 0) process.exit(status);
await import('../dist/main.js');
