#!/usr/bin/env node
/** The simcloud CLI: `serve` and resource commands. Usage errors exit 2 with one line; other failures exit 1. */
import { z } from 'zod';
import { isApiError } from '../api/client/index.ts';
import { runCommand } from './commands.ts';
import { serve } from './serve.ts';
import { UsageError } from '../../lib/usage-error.ts';
import { HELP } from './usage.ts';

function causeChain(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err; e instanceof Error; e = e.cause) parts.push(e.message);
  return parts.length > 0 ? parts.join(': ') : String(err);
}

const HELP_WORDS = new Set(['--help', '-h', 'help']);

async function serveOrUsage(args: string[]): Promise<void> {
  try {
    await serve(args);
  } catch (err) {
    if (err instanceof TypeError && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) throw new UsageError(err.message);
    if (err instanceof z.ZodError) throw new UsageError(`invalid option: ${err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    throw err;
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined) throw new UsageError('missing command; see simcloud --help');
  if (HELP_WORDS.has(command)) return void process.stdout.write(HELP + '\n');
  if (command === 'serve') return serveOrUsage(rest);
  return runCommand(command, rest);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError) {
    process.stderr.write(`simcloud: ${err.message}\n`);
    process.exit(2);
  }
  const fields = isApiError(err) && err.fields.length > 0 ? ` (${err.fields.map((f) => `${f.name}: ${f.messages.join(', ')}`).join('; ')})` : '';
  process.stderr.write(`simcloud: ${causeChain(err)}${fields}\n`);
  process.exit(1);
});
