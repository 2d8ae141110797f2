// The differential verdict: every leaf where our CCM's run and upstream's differ, matched against the
// deviations table of deploy/README.md (its rows between the `differential-deviations` markers: a stable
// id, the leaf paths it covers as globs, and why). A difference no row covers fails the test, and so
// does a D row that covers no difference, so the table stays exactly what is true. A T row is a race
// whose outcome depends on timing: it may cover a difference, and is not required to.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { Snapshot } from './snapshot.ts';

export const DEVIATIONS_FILE = new URL('../../deploy/README.md', import.meta.url);
const START = '<!-- differential-deviations:start -->';
const END = '<!-- differential-deviations:end -->';

export const Deviation = z.object({
  id: z.string().regex(/^[DT]\d+$/, 'an id is D (always differs) or T (depends on timing) followed by a number'),
  paths: z.array(z.string().min(1)).min(1),
  why: z.string().min(10, 'say why, in a sentence'),
});
export type Deviation = z.infer<typeof Deviation>;

export class DeviationsTableError extends Error {
  override name = 'DeviationsTableError';
}

/** The rows of the table: `| D1 | \`glob\`, \`glob\` | why |`. */
export function parseDeviations(markdown: string): Deviation[] {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  if (start < 0 || end < start) throw new DeviationsTableError(`the deviations table needs the markers ${START} and ${END}`);
  const rows = markdown
    .slice(start + START.length, end)
    .split('\n')
    .filter((l) => /^\|\s*[DT]\d+/.test(l));
  const out = rows.map((line) => {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const paths = [...(cells[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
    const parsed = Deviation.safeParse({ id: cells[0], paths, why: cells[2] ?? '' });
    if (!parsed.success)
      throw new DeviationsTableError(`deviations row "${line}": ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return parsed.data;
  });
  const ids = out.map((d) => d.id);
  const dup = ids.find((id, i) => ids.indexOf(id) !== i);
  if (dup) throw new DeviationsTableError(`deviation id ${dup} is used twice`);
  return out;
}

export function readDeviations(): Deviation[] {
  return parseDeviations(readFileSync(DEVIATIONS_FILE, 'utf8'));
}

/** `*` matches within one path segment, `**` across segments. */
export function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*');
  return new RegExp(`^${body}$`);
}

export interface Difference {
  readonly path: string;
  readonly ours: string | undefined;
  readonly upstream: string | undefined;
  /** The deviation that covers it, if any. */
  readonly deviation: string | undefined;
}

export interface Verdict {
  readonly differences: readonly Difference[];
  readonly unlisted: readonly Difference[];
  /** D deviations that covered no difference in this run. */
  readonly stale: readonly Deviation[];
  readonly compared: number;
}

export function compare(ours: Snapshot, upstream: Snapshot, deviations: readonly Deviation[]): Verdict {
  const matchers = deviations.map((d) => ({ id: d.id, res: d.paths.map(globToRegExp) }));
  const paths = [...new Set([...ours.keys(), ...upstream.keys()])].sort();
  const differences = paths
    .filter((p) => ours.get(p) !== upstream.get(p))
    .map((path): Difference => ({
      path,
      ours: ours.get(path),
      upstream: upstream.get(path),
      deviation: matchers.find((m) => m.res.some((re) => re.test(path)))?.id,
    }));
  const used = new Set(differences.map((d) => d.deviation));
  const stale = deviations.filter((d) => d.id.startsWith('D') && !used.has(d.id));
  return { differences, unlisted: differences.filter((d) => !d.deviation), stale, compared: paths.length };
}

const cut = (s: string | undefined, n = 70): string => (s === undefined ? '(absent)' : s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The differential table for humans: one row per difference, with the deviation that explains it. */
export function differentialTable(v: Verdict): string {
  const rows = v.differences.map((d) => [d.deviation ?? 'UNLISTED', d.path, cut(d.ours), cut(d.upstream)]);
  const header = ['deviation', 'path', 'ours', 'upstream'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]): string =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const stale = v.stale.map((d) => `stale deviation ${d.id} (${d.paths.join(', ')}): no longer differs`);
  return [`${v.compared} leaves compared, ${v.differences.length} differ, ${v.unlisted.length} unlisted`, line(header), ...rows.map(line), ...stale].join('\n');
}
