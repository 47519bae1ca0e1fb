import { runCommandLine } from './command-line.ts';

// The operator CLI (`npm run --silent cli -- COMMAND`): src/command-line.ts, with this process's
// environment, stdout and stderr.
process.exitCode = await runCommandLine(process.argv.slice(2), { env: process.env, out: (line) => console.log(line), err: (line) => console.error(line) });
