/**
 * A faults file: fault rules simcloud holds from its start (`simcloud serve --faults FILE`, and through it
 * `sandbox:up --faults` and `npm run conformance -- --faults`), so a CCM meets them from its first call.
 * JSON, either `{"faults": [rule, ...]}` or a bare array; each rule is what `POST /_sim/faults` takes.
 * Read and checked whole before anything starts: a bad file is one line naming the rule and field.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { FaultRuleInput } from './schema/internal.ts';
import { SelectorSyntaxError, parseSelector } from './schema/label-selector.ts';

export const FaultsFile = z.union([z.strictObject({ faults: z.array(FaultRuleInput) }), z.array(FaultRuleInput)]);
export type FaultsFile = z.infer<typeof FaultsFile>;

/** What is wrong with a faults file, in one line. */
export class FaultsFileError extends Error {
  constructor(file: string, what: string) {
    super(`faults file ${file}: ${what}`);
    this.name = 'FaultsFileError';
  }
}

/** Why a rule's `match.label` is not a label selector, or undefined when it is (or there is none). */
export function labelSelectorError(input: FaultRuleInput): string | undefined {
  if (input.match?.label === undefined) return undefined;
  try {
    parseSelector(input.match.label);
    return undefined;
  } catch (err) {
    if (err instanceof SelectorSyntaxError) return err.message;
    throw err;
  }
}

/** The first issue, from the union's reading that matches the file's shape (it names the real field). */
function firstIssue(json: unknown, error: z.ZodError): z.core.$ZodIssue | undefined {
  const issue = error.issues[0];
  if (issue?.code !== 'invalid_union') return issue;
  const fits = (e: z.core.$ZodIssue[]): boolean => e.length > 0 && (Array.isArray(json) ? typeof e[0]?.path[0] === 'number' : e[0]?.path[0] === 'faults');
  return issue.errors.find(fits)?.[0] ?? issue;
}

export function parseFaults(file: string, text: string): FaultRuleInput[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new FaultsFileError(file, `not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const parsed = FaultsFile.safeParse(json);
  if (!parsed.success) {
    const first = firstIssue(json, parsed.error);
    const where = first?.path.length ? first.path.join('.') : 'the top level';
    throw new FaultsFileError(file, `${where}: ${first?.message ?? 'invalid'} (expected {"faults": [rule, ...]} with rules as POST /_sim/faults takes them)`);
  }
  const rules = Array.isArray(parsed.data) ? parsed.data : parsed.data.faults;
  rules.forEach((rule, i) => {
    const bad = labelSelectorError(rule);
    if (bad !== undefined) throw new FaultsFileError(file, `faults.${i}.match.label: ${bad}`);
  });
  return rules;
}

export function readFaultsFile(file: string): FaultRuleInput[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new FaultsFileError(file, `cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  return parseFaults(file, text);
}
