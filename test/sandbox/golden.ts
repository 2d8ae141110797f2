// Golden files for the sandbox's dry runs (kwok's test/e2e/dryrun.go idea): the rendered command sequence
// and generated files, with machine-specific paths normalised, compared to test/sandbox/golden/<name>.
// UPDATE_GOLDEN=1 rewrites the files instead of comparing.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const GOLDEN_DIR = fileURLToPath(new URL('./golden/', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');

/** Replaces each key (longest first) by its placeholder. */
export function normalise(text: string, replacements: Readonly<Record<string, string>>): string {
  let out = text;
  for (const [from, to] of Object.entries(replacements).sort((a, b) => b[0].length - a[0].length)) out = out.split(from).join(to);
  return out;
}

export function expectGolden(name: string, actual: string): void {
  const path = join(GOLDEN_DIR, name);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  if (!existsSync(path)) throw new Error(`golden file ${path} is missing; run with UPDATE_GOLDEN=1 to create it`);
  expect(actual, `differs from golden file test/sandbox/golden/${name} (UPDATE_GOLDEN=1 rewrites it)`).toBe(readFileSync(path, 'utf8'));
}
