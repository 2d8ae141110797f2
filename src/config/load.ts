/**
 * Loads the CCM configuration: flags > environment > cloud-config file > defaults, merged per field through
 * the settings registry, then validated by the one schema. Every bad field is reported at once, each named by
 * the source that supplied it (`--secure-port`, `SIMCLOUD_ENDPOINT`, `cloud-config loadBalancer.strategy`).
 */
import { readFileSync } from 'node:fs';
import { load as loadYaml } from 'js-yaml';
import { UsageError } from '../../lib/usage-error.ts';
import { ENV } from './env.ts';
import { CloudConfigFileSchema, ConfigSchema, type CcmConfig } from './schema.ts';
import { settingByFlag, settings, type SettingDefinition, type SettingKey } from './settings.ts';

/** Invalid configuration: every problem, one per line. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export interface ParsedFlags {
  readonly values: Partial<Record<SettingKey, string>>;
  readonly help: boolean;
}

function splitFlag(arg: string): { name: string; inline: string | undefined } {
  const body = arg.replace(/^--?/, '');
  const eq = body.indexOf('=');
  return eq < 0 ? { name: body, inline: undefined } : { name: body.slice(0, eq), inline: body.slice(eq + 1) };
}

function flagValue(argv: readonly string[], i: number, def: SettingDefinition): { value: string; consumed: number } {
  const { name, inline } = splitFlag(argv[i] ?? '');
  if (inline !== undefined) return { value: inline, consumed: 0 };
  if (def.type === 'bool') return { value: 'true', consumed: 0 };
  const next = argv[i + 1];
  if (next === undefined) throw new UsageError(`flag --${name} needs a value`);
  return { value: next, consumed: 1 };
}

/** Go-flag style: `--name=value`, `--name value`, `-name value`; a bare bool flag means true. */
export function parseFlags(argv: readonly string[]): ParsedFlags {
  const values: Partial<Record<SettingKey, string>> = {};
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('-') || arg === '-' || arg === '--') throw new UsageError(`unexpected argument "${arg}"; see --help`);
    const { name } = splitFlag(arg);
    if (name === 'help' || name === 'h') {
      help = true;
      continue;
    }
    const found = settingByFlag(name);
    if (!found) throw new UsageError(`unknown flag --${name}; see --help`);
    const { value, consumed } = flagValue(argv, i, found[1]);
    values[found[0]] = value;
    i += consumed;
  }
  return { values, help };
}

function getPath(obj: unknown, dotted: string): unknown {
  let current: unknown = obj;
  for (const part of dotted.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** Reads and checks the cloud-config file (JSON is YAML); returns values by setting key. */
export function readCloudConfig(path: string, read: (p: string) => string = (p) => readFileSync(p, 'utf8')): Partial<Record<SettingKey, unknown>> {
  let doc: unknown;
  try {
    doc = loadYaml(read(path)) ?? {};
  } catch (err) {
    throw new ConfigError([`cloud-config ${path}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`]);
  }
  const checked = CloudConfigFileSchema.safeParse(doc);
  if (!checked.success) {
    throw new ConfigError(checked.error.issues.map((i) => `cloud-config ${path} ${i.path.join('.') || '(root)'}: ${i.message}`));
  }
  const values: Partial<Record<SettingKey, unknown>> = {};
  for (const [key, def] of Object.entries(settings) as [SettingKey, SettingDefinition][]) {
    const value = def.file ? getPath(doc, def.file) : undefined;
    if (value !== undefined && value !== null) values[key] = value;
  }
  return values;
}

export interface LoadOptions {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly readFile?: (path: string) => string;
}

interface Sourced {
  readonly raw: Record<string, unknown>;
  readonly source: Partial<Record<SettingKey, string>>;
}

function merge(flags: ParsedFlags['values'], env: LoadOptions['env'], file: Partial<Record<SettingKey, unknown>>): Sourced {
  const raw: Record<string, unknown> = {};
  const source: Partial<Record<SettingKey, string>> = {};
  for (const [key, def] of Object.entries(settings) as [SettingKey, SettingDefinition][]) {
    const fromEnv = def.env ? env[def.env] : undefined;
    if (flags[key] !== undefined) {
      raw[key] = flags[key];
      source[key] = `--${def.flag ?? key}`;
    } else if (def.env && fromEnv !== undefined && fromEnv !== '') {
      raw[key] = fromEnv;
      source[key] = def.env;
    } else if (file[key] !== undefined) {
      raw[key] = file[key];
      source[key] = `cloud-config ${def.file ?? key}`;
    } else {
      raw[key] = def.default;
      source[key] = settingNames(def, key);
    }
  }
  return { raw, source };
}

/** Every way to set a setting, as named to a user: `--flag / ENV / cloud-config key`. */
export function settingNames(def: SettingDefinition, key: string): string {
  const names = [def.flag ? `--${def.flag}` : '', def.env ?? '', def.file ? `cloud-config ${def.file}` : ''].filter((n) => n !== '');
  return names.length > 0 ? names.join(' / ') : key;
}

function cloudConfigPath(flags: ParsedFlags['values'], env: LoadOptions['env']): string {
  return flags.cloudConfig ?? env[ENV.cloudConfig] ?? '';
}

/** Merges and validates; throws `UsageError` (bad command line) or `ConfigError` (every bad field). */
export function loadConfig(options: LoadOptions): CcmConfig {
  const flags = parseFlags(options.argv);
  const path = cloudConfigPath(flags.values, options.env);
  const file = path === '' ? {} : readCloudConfig(path, options.readFile);
  const { raw, source } = merge(flags.values, options.env, file);
  const result = ConfigSchema.safeParse(raw);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const key = String(issue.path[0] ?? '') as SettingKey;
    const where = source[key] ?? key;
    return `${where}: ${issue.message}`;
  });
  throw new ConfigError(problems);
}

/** The config with secrets replaced, for logs and `/configz`-style output. */
export function redactedConfig(config: CcmConfig): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config };
  for (const [key, def] of Object.entries(settings) as [SettingKey, SettingDefinition][]) {
    if (def.secret && out[key] !== '') out[key] = '<redacted>';
  }
  return out;
}

/** `--help` text generated from the registry. */
export function usage(): string {
  const lines = ['Usage: simcloud-ccm [flags]', '', 'Flags:'];
  for (const def of Object.values<SettingDefinition>(settings)) {
    if (!def.flag) continue;
    const dflt = def.default === '' ? '' : ` (default ${def.default})`;
    lines.push(`  --${def.flag} ${def.type === 'bool' ? '' : def.type}`.trimEnd(), `      ${def.description}${dflt}`);
  }
  lines.push('', 'Environment:');
  for (const def of Object.values<SettingDefinition>(settings)) {
    if (def.env) lines.push(`  ${def.env}: ${def.description}`);
  }
  return lines.join('\n');
}
