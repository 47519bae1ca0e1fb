import { parseArgs } from 'node:util';
import { booksCommands } from './cli/books.ts';
import { keyCommands } from './cli/keys.ts';
import { moneyCommands } from './cli/money.ts';
import { outboxCommands } from './cli/outbox.ts';
import { processorCommands } from './cli/processor.ts';
import { replayCommands } from './cli/replays.ts';
import { tenancyCommands } from './cli/tenancy.ts';
import { webhookCommands } from './cli/webhooks.ts';
import { UsageError, type Command } from './cli/command.ts';
import { loadConfig } from './core/config.ts';
import { ApiError, errorBody, StartupError } from './core/errors.ts';
import path from 'node:path';
import { openRuntime } from './runtime.ts';

// Operator commands. With --json every command prints exactly one JSON object on stdout.
// The CLI uses the server's configuration: it connects to the running embedded database, or
// starts it for the length of the command. Exit codes: 0 done, 1 refused, 2 usage.

export const commands: Record<string, Command> = {
  ...tenancyCommands,
  ...keyCommands,
  ...moneyCommands,
  ...booksCommands,
  ...webhookCommands,
  ...replayCommands,
  ...outboxCommands,
  ...processorCommands,
  migrate: {
    usage: 'migrate [--json]',
    description: 'applies pending migrations (the server also does this on start)',
    options: {},
    async run() {
      return { json: { migrated: true }, text: 'The database schema is up to date.' };
    },
  },
};

function help(): string {
  return ['Usage: npm run --silent cli -- COMMAND [options]', '', ...Object.values(commands).map((c) => `  ${c.usage}`)].join('\n');
}

/** Where a command line's output goes, and the environment it reads its configuration from. */
export interface CommandLineIo {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (line: string) => void;
}

/**
 * Runs one command line (`argv` without the program) and answers its exit code. The CLI process
 * runs it with the process's own environment and streams; tests run it in theirs.
 */
export async function runCommandLine(argv: string[], io: CommandLineIo): Promise<number> {
  const name = [argv.slice(0, 2).join(' '), argv[0] ?? ''].find((candidate) => candidate in commands);
  if (!name) {
    io.err(help());
    return argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' ? 0 : 2;
  }
  const command = commands[name] as Command;
  const json = argv.includes('--json');
  let parsed;
  try {
    parsed = parseArgs({
      args: argv.slice(name.split(' ').length),
      options: { ...command.options, json: { type: 'boolean' } },
      allowPositionals: true,
    });
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\nUsage: ${command.usage}`);
    return 2;
  }
  let runtime;
  try {
    runtime = await openRuntime(loadConfig(io.env));
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    io.err(error.message);
    return 1;
  }
  if (runtime.embedded?.startedHere) {
    // Not the running server's database (none runs on this data folder): say which one it is,
    // so a server started with another DATA_DIR is not mistaken for this one.
    io.err(`No server is running on ${path.dirname(runtime.embedded.clusterDir)}; this command uses its embedded PostgreSQL (${runtime.embedded.clusterDir}, port ${runtime.embedded.port}), started for the command. Set DATA_DIR or DATABASE_URL as the server has them to use the server's database.`);
  }
  try {
    const result = await command.run(runtime.context, parsed.values, parsed.positionals, io.err);
    io.out(json ? JSON.stringify(result.json) : result.text);
    return 0;
  } catch (error) {
    // Usage mistakes exit 2 with the usage; a refusal exits 1 with the API's error (code, message, field).
    if (error instanceof UsageError) {
      if (json) io.out(JSON.stringify({ error: { code: 'usage', message: error.message } }));
      io.err(`${error.message}\nUsage: ${command.usage}`);
      return 2;
    }
    if (error instanceof ApiError) {
      if (json) io.out(JSON.stringify(errorBody(error)));
      io.err(`Refused (${error.code}${error.field ? `, ${error.field}` : ''}): ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await runtime.close();
  }
}

