/**
 * The field types of the CCM's settings: each is a documented type name (flag parsing, `--help`, docs) and
 * the zod schema that parses a raw value of it. Inputs are raw: strings from flags, env and defaults, or
 * JSON/YAML values from the cloud-config file; each field coerces its own type (durations like `15s`, `5m`,
 * `1h30m`, `500ms` become milliseconds).
 */
import { z } from 'zod';
import { splitHost } from '../../simulator/api/host-check.ts';

export const SettingType = {
  String: 'string',
  Int: 'int',
  Float: 'float',
  Bool: 'bool',
  Duration: 'duration',
  List: 'list',
} as const;
export type SettingType = (typeof SettingType)[keyof typeof SettingType];

/** A setting's type and the schema parsing its raw value. */
export interface Field<S extends z.ZodType = z.ZodType> {
  readonly type: SettingType;
  readonly schema: S;
}

const DURATION_PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go-style duration to milliseconds; `undefined` when malformed. Plain numbers are seconds. */
export function parseDuration(raw: string): number | undefined {
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  if (!/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(DURATION_PART)) total += Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? 0);
  return total;
}

const fromString =
  (parse: (raw: string) => unknown) =>
  (v: unknown): unknown =>
    typeof v === 'string' ? parse(v) : v;

const textSchema = z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string({ error: 'must be a string' }));
const splitList = (lower: boolean): ((v: unknown) => unknown) =>
  fromString((raw) =>
    raw
      .split(',')
      .map((x) => (lower ? x.trim().toLowerCase() : x.trim()))
      .filter((x) => x !== ''),
  );

const CIDR = /^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$|^[0-9a-fA-F:]+\/\d{1,3}$/;

export const field = {
  /** Any string (numbers from a YAML file become strings). */
  text: () => ({ type: SettingType.String, schema: textSchema }),
  /** A string `rule` checks. */
  textWith: <S extends z.ZodType<unknown, string>>(rule: S) => ({ type: SettingType.String, schema: textSchema.pipe(rule) }),
  /** One of `values`. */
  oneOf: <const V extends readonly [string, ...string[]]>(values: V) => ({
    type: SettingType.String,
    schema: z.enum(values, { error: `must be one of: ${values.join(', ')}` }),
  }),
  bool: () => ({
    type: SettingType.Bool,
    schema: z.preprocess(
      fromString((raw) => {
        const v = raw.trim().toLowerCase();
        if (v === 'true' || v === '1' || v === '') return true;
        if (v === 'false' || v === '0') return false;
        return raw;
      }),
      z.boolean({ error: 'must be true or false' }),
    ),
  }),
  int: (min: number, max: number) => ({
    type: SettingType.Int,
    schema: z.preprocess(
      fromString((raw) => (/^\s*-?\d+\s*$/.test(raw) ? Number(raw) : raw)),
      z.number({ error: 'must be an integer' }).int().min(min).max(max),
    ),
  }),
  float: (min: number) => ({
    type: SettingType.Float,
    schema: z.preprocess(
      fromString((raw) => (Number.isFinite(Number(raw)) && raw.trim() !== '' ? Number(raw) : raw)),
      z.number({ error: 'must be a number' }).min(min),
    ),
  }),
  duration: (minMs: number) => ({
    type: SettingType.Duration,
    schema: z.preprocess(
      fromString((raw) => parseDuration(raw) ?? raw),
      z.number({ error: 'must be a duration like 500ms, 15s, 5m or 1h30m' }).min(minMs),
    ),
  }),
  list: () => ({ type: SettingType.List, schema: z.preprocess(splitList(false), z.array(z.string().min(1))) }),
  /** Host names or NAME:PORT, comma-separated, lower-cased. */
  hostList: () => ({
    type: SettingType.List,
    schema: z.preprocess(
      splitList(true),
      z.array(z.string().refine((h) => splitHost(h) !== undefined, 'must be host names or NAME:PORT, comma-separated (no scheme, no wildcard)')),
    ),
  }),
  /** Empty, a CIDR or a comma list of CIDRs. */
  cidrs: () => ({
    type: SettingType.String,
    schema: textSchema.refine((v) => v === '' || v.split(',').every((c) => CIDR.test(c.trim())), 'must be a CIDR or a comma list of CIDRs'),
  }),
} as const;
