#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config-error.js';
import { CLI_VERSION } from '../contract/index.js';
import { ConflictError, DomainError, NotFoundError, ValidationError } from '../domain/common/errors.js';
import { registerDbCommands } from './operator/db.js';
import { registerEmbeddingCommands } from './operator/embeddings.js';
import { registerKeyCommands } from './operator/keys.js';
import { registerServerCommands } from './operator/server.js';
import { registerUserCommands } from './operator/users.js';
import { CliError, EXIT, terminalSafe } from './output.js';
import { registerArtifactCommands } from './remote/commands/artifacts.js';
import { registerLoginCommands } from './remote/commands/login.js';
import { registerMemoryCommands } from './remote/commands/memories.js';
import { registerPromptCommands } from './remote/commands/prompts.js';
import { registerTransferCommands } from './remote/commands/transfer.js';

/**
 * `cairn`: client commands that talk to a server over the REST API (login, prompts, memories, artifacts,
 * export/import), and operator commands that work on the database named by DATABASE_URL (serve, users, keys, db).
 */
export function buildProgram(): Command {
  const program = new Command('cairn')
    .description('Cairn: a self-hosted home for prompts, artifacts and memories')
    .version(CLI_VERSION)
    .showHelpAfterError('(run with --help for usage)')
    // Options belong to the command they follow (`cairn import markdown … --json` is markdown's --json).
    .enablePositionalOptions()
    .exitOverride();
  registerLoginCommands(program);
  registerPromptCommands(program);
  registerMemoryCommands(program);
  registerArtifactCommands(program);
  registerTransferCommands(program);
  registerServerCommands(program);
  registerUserCommands(program);
  registerKeyCommands(program);
  registerDbCommands(program);
  registerEmbeddingCommands(program);
  for (const command of program.commands) applyExitOverride(command);
  return program;
}

function applyExitOverride(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) applyExitOverride(sub);
}

/** One line on stderr and a meaningful exit code; a stack trace only with CAIRN_DEBUG=1. */
export function describeFailure(error: unknown): { message: string; exitCode: number } {
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof ConfigError) return { message: error.message, exitCode: EXIT.usage };
  if (error instanceof ValidationError) {
    const fields = Object.entries(error.details).map(([field, problem]) => `${field}: ${problem}`);
    return { message: `invalid input: ${fields.join('; ')}`, exitCode: EXIT.usage };
  }
  if (error instanceof NotFoundError) return { message: error.message, exitCode: EXIT.notFound };
  if (error instanceof ConflictError) return { message: error.message, exitCode: EXIT.conflict };
  if (error instanceof DomainError) {
    // The operator runs this locally, so a wrapped backend failure (storage unreachable) may name its reason.
    const cause = error.cause instanceof Error ? ` (${error.cause.message.split('\n')[0]})` : '';
    return { message: `${error.message}${cause}`, exitCode: EXIT.failure };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message: message.split('\n')[0] ?? 'unknown error', exitCode: EXIT.failure };
}

async function run(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed its message (or the help/version text).
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    const { message, exitCode } = describeFailure(error);
    // The message may quote the server (its error messages, names): never its escape sequences.
    process.stderr.write(`cairn: ${terminalSafe(message)}\n`);
    if (process.env.CAIRN_DEBUG === '1' && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    process.exitCode = exitCode;
  }
}

await run(process.argv);
