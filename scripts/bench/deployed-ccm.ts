// The CCM as deploy/ runs it, for S12: the bundle from scripts/build.ts started with the memory settings
// deploy/deployment.yaml gives its container (read from the manifest, so the benchmark measures what is shipped).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadAll } from 'js-yaml';
import { z } from 'zod';
import { buildCcmBundle } from '../build.ts';
import type { CcmEntry } from './env.ts';

export const DEPLOYMENT_MANIFEST = fileURLToPath(new URL('../../deploy/deployment.yaml', import.meta.url));

const EnvVar = z.object({ name: z.string(), value: z.string().optional() });
const Deployment = z.object({
  kind: z.literal('Deployment'),
  spec: z.object({ template: z.object({ spec: z.object({ containers: z.array(z.object({ name: z.string(), env: z.array(EnvVar).optional() })).min(1) }) }) }),
});

/** The environment variables that size the CCM's memory. */
export const MEMORY_ENV = ['NODE_OPTIONS', 'MALLOC_ARENA_MAX'] as const;

/** The CCM container's plain-value environment variables among `names`, from a multi-document manifest. */
export function deploymentEnv(manifest: string, names: readonly string[] = MEMORY_ENV): Record<string, string> {
  const deployment = loadAll(manifest).find((doc) => Deployment.safeParse(doc).success);
  if (deployment === undefined) throw new Error('the manifest has no Deployment');
  const container = Deployment.parse(deployment).spec.template.spec.containers[0];
  const out: Record<string, string> = {};
  for (const e of container?.env ?? []) if (names.includes(e.name) && e.value !== undefined) out[e.name] = e.value;
  return out;
}

/** Builds the bundle into `dir` and returns how to start it as the Deployment does. */
export async function deployedCcm(dir: string): Promise<CcmEntry & { readonly label: string }> {
  const main = join(dir, 'ccm.mjs');
  await buildCcmBundle(main);
  const env = deploymentEnv(readFileSync(DEPLOYMENT_MANIFEST, 'utf8'));
  return { main, env, label: `bundle, ${Object.entries(env).map(([k, v]) => `${k}="${v}"`).join(' ')}` };
}
