// The conformance run's reference page (docs/reference/conformance.md, written by scripts/generate-docs.ts):
// the capabilities in run order, and per cloud what its CCM is expected to write and which annotations the
// annotated load balancer carries, all read from the code that runs the checks.
import { CLOUD_DESCRIPTORS } from '../cloud/registry.ts';
import { CAPABILITIES, CAPABILITY_INFO } from './capabilities.ts';

const row = (cells: readonly string[]): string => `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;

export function conformanceDoc(header: string): string {
  const clouds = CLOUD_DESCRIPTORS.map((d) => {
    const p = d.conformance;
    const annotations = Object.entries(p.annotations.values)
      .map(([k, v]) => `\`${p.annotations.prefix}${k}: ${v}\``)
      .join(', ');
    return row([
      `\`${d.kind}\``,
      `\`${d.providerId('srv-00000042')}\``,
      p.zones ? 'region and zone' : 'region only',
      Object.keys(p.nodeLabels)
        .map((k) => `\`${k}\``)
        .join(', ') || '-',
      p.sourceRanges ? 'yes' : 'no',
      annotations,
      p.checkAnnotated ? `read back through the ${d.title} API` : 'checked by traffic',
    ]);
  });
  return [
    header,
    '# Conformance capabilities',
    '',
    'Checked in this order on one sandbox (`npm run conformance`, [docs/conformance.md](../conformance.md)); a capability',
    'whose prerequisite did not pass is skipped (or not offered, with it).',
    '',
    row(['Capability', 'What passes', 'Needs']),
    row(['---', '---', '---']),
    ...CAPABILITIES.map((c) =>
      row([
        `\`${c}\``,
        CAPABILITY_INFO[c].title,
        `${CAPABILITY_INFO[c].needs ? `\`${CAPABILITY_INFO[c].needs}\`` : '-'}${CAPABILITY_INFO[c].optIn ? '; checked only when `--only` names it' : ''}`,
      ]),
    ),
    '',
    '## Per cloud',
    '',
    "What the cloud's CCM must write on the Node of a server (shown for server `srv-00000042`), and the annotated load",
    'balancer of `lb-annotations` (its health-check path is set to `/unhealthy`, then `/healthz`).',
    '',
    row(['Cloud', 'providerID', 'Topology labels', 'Other labels', 'Source ranges', 'Annotations', 'Settings']),
    row(['---', '---', '---', '---', '---', '---', '---']),
    ...clouds,
    '',
    '## The secondary lookup call (`api-faults`)',
    '',
    "The network, VPC or interface call the cloud's own CCM makes while it looks up an instance, which `api-faults` fails",
    "for one window (a path glob in the cloud's API), or why there is none; and the statuses its API says a server is",
    'gone with, which `api-faults` does not inject (a 401 replaces a 403 that is one).',
    '',
    row(['Cloud', 'Secondary call', 'A server gone']),
    row(['---', '---', '---']),
    ...CLOUD_DESCRIPTORS.map((d) => {
      const s = d.conformance.lookupSecondary;
      const gone = d.conformance.goneStatuses?.map((g) => `${g.status}: ${g.evidence}`).join('; ') ?? '404';
      return row([`\`${d.kind}\``, 'path' in s ? `\`GET ${s.path}\`: ${s.what}` : `none: ${s.none}`, gone]);
    }),
    '',
  ].join('\n');
}
