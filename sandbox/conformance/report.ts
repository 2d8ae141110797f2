// The conformance run's report: one row per capability (pass, fail with its evidence, skipped, or not
// offered by this CCM), rendered as a table for the terminal, as JUnit XML for a CI system and as JSON.
// The JSON crosses a process boundary (a CCM author's CI reads it), so it has a schema.
import { z } from 'zod';
import { FaultRuleInput } from '../../simulator/api/schema/internal.ts';
import { CAPABILITIES, CAPABILITY_INFO } from './capabilities.ts';
import { PROFILES } from './context.ts';

export const Verdict = { pass: 'pass', fail: 'fail', skipped: 'skipped', notOffered: 'not offered' } as const;
export type Verdict = (typeof Verdict)[keyof typeof Verdict];

/** What a CCM's cloud write did to the store: re-applied what was there, changed a setting, or an identity (created, deleted, renamed). */
export const CloudWriteEffect = { none: 'none', setting: 'setting changed', identity: 'identity changed' } as const;
export type CloudWriteEffect = (typeof CloudWriteEffect)[keyof typeof CloudWriteEffect];

/** One cloud write the CCM made during a continuity check (after a restart, an upgrade). */
export const CloudWrite = z.object({
  method: z.string(),
  path: z.string(),
  status: z.number().int(),
  effect: z.enum(CloudWriteEffect),
  /** What it changed, one phrase per change (empty for none). */
  changes: z.array(z.string()),
});
export type CloudWrite = z.infer<typeof CloudWrite>;

export const CapabilityResult = z.object({
  capability: z.enum(CAPABILITIES),
  verdict: z.enum(Verdict),
  /** Why it failed, was skipped or is not offered; notes for a pass. */
  message: z.string(),
  durationMs: z.number(),
  /** Cloud API calls made during the check by anyone but the sandbox itself: the CCM's. */
  cloudCalls: z.number().int(),
  /** On failure: the Events of the objects the check looked at, one line each. */
  events: z.array(z.string()),
  /** On failure: the CCM's last log lines. */
  ccmLog: z.array(z.string()),
  /** The continuity checks (restart, upgrade): every cloud write the CCM made after its start, with its effect. */
  writes: z.array(CloudWrite).default([]),
});
export type CapabilityResult = z.infer<typeof CapabilityResult>;

export const ConformanceReport = z.object({
  cloud: z.string(),
  ccm: z.string(),
  /** What was checked (`--profile`): kubernetes, or cloud (also the cloud CCM's own labels). */
  profile: z.enum(PROFILES).default('kubernetes'),
  /** The CCM command line, for --ccm command. */
  command: z.string().nullable(),
  runtime: z.string(),
  /** The ccm-sandbox that ran the check (sandbox/version.ts); reports from before it read as unknown. */
  sandboxVersion: z.string().default('unknown'),
  /** The Kubernetes version of the control plane the CCM ran against. */
  kubernetesVersion: z.string().default('unknown'),
  /** The fault rules simcloud held for the whole run (`--faults`), or null for none. */
  faults: z
    .strictObject({ file: z.string(), rules: z.array(FaultRuleInput) })
    .nullable()
    .default(null),
  startedAt: z.string(),
  durationMs: z.number(),
  /** Why the sandbox could not be brought up, if it could not. */
  error: z.string().nullable(),
  results: z.array(CapabilityResult),
});
export type ConformanceReport = z.infer<typeof ConformanceReport>;

/** Whether every attempted capability passed: the run's exit status. */
export function passed(report: ConformanceReport): boolean {
  return report.error === null && report.results.every((r) => r.verdict === Verdict.pass || r.verdict === Verdict.notOffered);
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export function renderTable(report: ConformanceReport): string {
  const head = `conformance of the ${report.ccm} CCM on ${report.cloud} (${report.runtime} runtime${report.profile === 'cloud' ? ', profile cloud' : ''}): ${passed(report) ? 'PASS' : 'FAIL'} in ${seconds(report.durationMs)}, ccm-sandbox ${report.sandboxVersion}, Kubernetes ${report.kubernetesVersion}`;
  const rows = report.results.map(
    (r) =>
      `  ${r.capability.padEnd(16)}${r.verdict.padEnd(13)}${seconds(r.durationMs).padStart(8)}${String(r.cloudCalls).padStart(13)}   ${r.verdict === Verdict.pass ? r.message : firstLine(r.message)}`,
  );
  const details = report.results
    .filter((r) => r.verdict === Verdict.fail && report.error === null)
    .flatMap((r) => [
      '',
      `${r.capability} failed: ${r.message}`,
      ...(r.events.length ? ['  Events:', ...r.events.map((e) => `    ${e}`)] : ['  Events: none']),
      ...(r.ccmLog.length ? ['  CCM log (last lines):', ...r.ccmLog.map((l) => `    ${l}`)] : []),
    ]);
  const writes = report.results
    .filter((r) => r.writes.length > 0)
    .flatMap((r) => ['', `${r.capability}: the CCM's cloud writes after its start`, ...r.writes.map((w) => `  ${writeLine(w)}`)]);
  return [
    head,
    ...(report.faults
      ? [`  under ${report.faults.rules.length} fault rule(s) from ${report.faults.file}: ${report.faults.rules.map(faultLine).join('; ')}`]
      : []),
    ...(report.error ? [`  the sandbox did not come up: ${report.error.split('\n').join('\n    ')}`] : []),
    `  ${'capability'.padEnd(16)}${'verdict'.padEnd(13)}${'time'.padStart(8)}${'cloud calls'.padStart(13)}   note`,
    ...rows,
    ...writes,
    ...details,
  ].join('\n');
}

/** `PUT /hcloud/v1/load_balancers/3/actions/update_service 201: none`, with what changed. */
const writeLine = (w: CloudWrite): string => `${w.method} ${w.path} ${w.status}: ${w.effect}${w.changes.length ? ` (${w.changes.join('; ')})` : ''}`;

/** One rule in a few words: `latency 500 ms on PUT /v2/load_balancers/*`. */
function faultLine(r: FaultRuleInput): string {
  const what =
    r.kind === 'latency'
      ? `latency ${r.latency_ms} ms`
      : r.kind === 'error'
        ? `error ${r.status} ${r.code}`
        : r.kind === 'rate_limit'
          ? `rate limit ${r.limit}/${r.window_seconds} s`
          : r.kind.replace(/_/g, ' ');
  const on = [r.match?.method, r.match?.path ?? r.match?.resource_type].filter((x) => x !== undefined).join(' ');
  return `${what}${on ? ` on ${on}` : ''}${r.probability !== undefined ? ` (p ${r.probability})` : ''}`;
}

const firstLine = (s: string): string => s.split('\n')[0] ?? '';

const XML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
// Characters XML 1.0 cannot carry at all (a CCM's log may hold terminal escapes).
// eslint-disable-next-line no-control-regex
const xml = (s: string): string => s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '').replace(/[&<>"']/g, (c) => XML_ESCAPES[c] ?? c);

function junitCase(report: ConformanceReport, r: CapabilityResult): string {
  const open = `    <testcase classname="ccm-conformance.${xml(report.cloud)}" name="${r.capability}: ${xml(CAPABILITY_INFO[r.capability].title)}" time="${(r.durationMs / 1000).toFixed(3)}">`;
  const writes = r.writes.length ? `\ncloud writes after the CCM's start:\n${r.writes.map(writeLine).join('\n')}` : '';
  const out = `      <system-out>${xml(`cloud calls: ${r.cloudCalls}${r.message ? `\n${r.message}` : ''}${writes}`)}</system-out>`;
  if (r.verdict === Verdict.pass) return [open, out, '    </testcase>'].join('\n');
  if (r.verdict !== Verdict.fail)
    return [open, `      <skipped message="${xml(`${r.verdict}: ${firstLine(r.message)}`)}"/>`, out, '    </testcase>'].join('\n');
  const body = [r.message, '', 'Events:', ...(r.events.length ? r.events : ['none']), '', 'CCM log (last lines):', ...r.ccmLog].join('\n');
  return [open, `      <failure message="${xml(firstLine(r.message))}" type="CapabilityFailure">${xml(body)}</failure>`, out, '    </testcase>'].join('\n');
}

/** JUnit XML: one testsuite for the run, one testcase per capability (not offered and skipped as skipped). */
export function renderJunit(report: ConformanceReport): string {
  const failures = report.results.filter((r) => r.verdict === Verdict.fail).length + (report.error ? 1 : 0);
  const skipped = report.results.filter((r) => r.verdict === Verdict.skipped || r.verdict === Verdict.notOffered).length;
  const counts = `tests="${report.results.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${(report.durationMs / 1000).toFixed(3)}"`;
  const props = [
    ['cloud', report.cloud],
    ['ccm', report.ccm],
    ['runtime', report.runtime],
    ['ccm-sandbox-version', report.sandboxVersion],
    ['kubernetes-version', report.kubernetesVersion],
    ...(report.command ? [['ccm-command', report.command]] : []),
    ...(report.faults ? [['faults', report.faults.file]] : []),
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="ccm-sandbox conformance" ${counts}>`,
    `  <testsuite name="${xml(`${report.ccm} CCM on ${report.cloud}`)}" ${counts} timestamp="${xml(report.startedAt)}">`,
    '    <properties>',
    ...props.map(([k, v]) => `      <property name="${k}" value="${xml(v ?? '')}"/>`),
    '    </properties>',
    ...(report.error ? [`    <system-err>${xml(`the sandbox did not come up: ${report.error}`)}</system-err>`] : []),
    ...report.results.map((r) => junitCase(report, r)),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
