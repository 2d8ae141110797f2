// The CCM as deploy/ runs it, for S12: the bundle from scripts/build.ts with the V8 code cache the image
// makes at build time, started with the image ENTRYPOINT's Node flags and the memory settings
// deploy/deployment.yaml gives its container (all read from deploy/, so the benchmark measures what is shipped).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { loadAll } from 'js-yaml';
import { z } from 'zod';
import type { HttpTransport } from '../../lib/http-pool.ts';
import { buildCcmBundle } from '../build.ts';
import type { CcmEntry } from './env.ts';

export const DEPLOYMENT_MANIFEST = fileURLToPath(new URL('../../deploy/deployment.yaml', import.meta.url));
export const DOCKERFILE = fileURLToPath(new URL('../../deploy/Dockerfile', import.meta.url));

/** The `ENV KEY=VALUE` settings of a Dockerfile's final stage (one pair per line, as ours writes them). */
export function imageEnv(dockerfile: string): Record<string, string> {
  const lines = dockerfile.split('\n');
  const last = lines.findLastIndex((l) => /^FROM\s/i.test(l));
  const out: Record<string, string> = {};
  for (const line of lines.slice(last + 1)) {
    const m = /^ENV\s+([A-Za-z_][A-Za-z0-9_]*)=(\S*)\s*$/.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

const EnvVar = z.object({ name: z.string(), value: z.string().optional() });
const Deployment = z.object({
  kind: z.literal('Deployment'),
  spec: z.object({ template: z.object({ spec: z.object({ containers: z.array(z.object({ name: z.string(), env: z.array(EnvVar).optional() })).min(1) }) }) }),
});

/** The environment variables that size the CCM's memory. */
export const MEMORY_ENV = ['NODE_OPTIONS', 'MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_'] as const;

/** The CCM container's plain-value environment variables among `names`, from a multi-document manifest. */
export function deploymentEnv(manifest: string, names: readonly string[] = MEMORY_ENV): Record<string, string> {
  const deployment = loadAll(manifest).find((doc) => Deployment.safeParse(doc).success);
  if (deployment === undefined) throw new Error('the manifest has no Deployment');
  const container = Deployment.parse(deployment).spec.template.spec.containers[0];
  const out: Record<string, string> = {};
  for (const e of container?.env ?? []) if (names.includes(e.name) && e.value !== undefined) out[e.name] = e.value;
  return out;
}

/** The Node flags of the final stage's exec-form `ENTRYPOINT ["node", ...flags, "<script>"]`. */
export function entrypointNodeFlags(dockerfile: string): string[] {
  const line = dockerfile.split('\n').findLast((l) => /^ENTRYPOINT\s/i.test(l));
  if (line === undefined) throw new Error('the Dockerfile has no ENTRYPOINT');
  const argv = z
    .array(z.string())
    .min(2)
    .parse(JSON.parse(line.replace(/^ENTRYPOINT\s+/i, '')));
  if (argv[0] !== 'node') throw new Error(`the ENTRYPOINT runs ${argv[0]}, not node`);
  return argv.slice(1, -1);
}

/** Prints the process's RSS in kB on stderr as it exits (an `--import` for a `--help` run). */
const RSS_AT_EXIT = `data:text/javascript,${encodeURIComponent("import { readFileSync } from 'node:fs'; process.on('exit', () => process.stderr.write(`rss-kb=${/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? ''}\\n`));")}`;

/** The deployed bundle's RSS once loaded, with nothing to do: a `--help` run with the deployed flags, env and cache. */
export async function idleRssMb(entry: CcmEntry & { readonly main: string }): Promise<number> {
  const run = await execa(process.execPath, [...(entry.nodeArgs ?? []), '--import', RSS_AT_EXIT, entry.main, '--help'], {
    env: { ...entry.env },
    extendEnv: false,
    reject: false,
  });
  const kb = Number(/rss-kb=(\d+)/.exec(run.stderr)?.[1]);
  if (run.exitCode !== 0 || !Number.isFinite(kb) || kb <= 0)
    throw new Error(`could not read the deployed bundle's idle RSS (exit ${run.exitCode ?? 'none'}): ${run.stderr.trim().split('\n')[0] ?? ''}`);
  return kb / 1024;
}

/**
 * Builds the bundle into `dir` and returns how to start it as the image and the Deployment do. When the
 * image sets NODE_COMPILE_CACHE, the cache is made the same way (a `--help` run of the bundle where it
 * runs, by the user who runs it) in `dir/compile-cache`. With another `transport` than lib/http1 the CCM
 * gets `CCM_HTTP_TRANSPORT` and runs without `--jitless` (undici needs WebAssembly), its cache made under
 * those flags in `dir/compile-cache-<transport>`.
 */
export async function deployedCcm(dir: string, transport: HttpTransport = 'http1'): Promise<CcmEntry & { readonly main: string; readonly label: string }> {
  const main = join(dir, 'ccm.mjs');
  await buildCcmBundle(main);
  const dockerfile = readFileSync(DOCKERFILE, 'utf8');
  const shipped = entrypointNodeFlags(dockerfile);
  const nodeArgs = transport === 'http1' ? shipped : shipped.filter((f) => f !== '--jitless');
  const env = { ...deploymentEnv(readFileSync(DEPLOYMENT_MANIFEST, 'utf8')), ...(transport === 'http1' ? {} : { CCM_HTTP_TRANSPORT: transport }) };
  const label = `bundle, node ${[...nodeArgs, 'ccm.mjs'].join(' ')}, ${Object.entries(env)
    .map(([k, v]) => `${k}="${v}"`)
    .join(' ')}`;
  if (imageEnv(dockerfile).NODE_COMPILE_CACHE === undefined) return { main, nodeArgs, env, label };
  const cache = join(dir, transport === 'http1' ? 'compile-cache' : `compile-cache-${transport}`);
  mkdirSync(cache, { recursive: true });
  await execa(process.execPath, [...nodeArgs, main, '--help'], { env: { NODE_COMPILE_CACHE: cache } });
  return { main, nodeArgs, env: { ...env, NODE_COMPILE_CACHE: cache }, label: `${label}, compile cache` };
}
