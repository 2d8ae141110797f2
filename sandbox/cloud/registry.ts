// The clouds a sandbox can present (`--cloud`), one descriptor each (sandbox/cloud/<kind>/cloud.ts). Adding
// a persona to the sandbox is its folder and one line here.
import { brightboxCloud } from './brightbox/cloud.ts';
import type { RealHost } from '../intercept/proxy.ts';
import type { CloudDescriptor } from './descriptor.ts';
import { digitaloceanCloud } from './digitalocean/cloud.ts';
import { hcloudCloud } from './hcloud/cloud.ts';
import { linodeCloud } from './linode/cloud.ts';
import { phoenixnapCloud } from './phoenixnap/cloud.ts';
import { simcloudCloud } from './simcloud/cloud.ts';

export const CLOUD_DESCRIPTORS = [simcloudCloud, hcloudCloud, linodeCloud, digitaloceanCloud, phoenixnapCloud, brightboxCloud] as const;

export type CloudKind = (typeof CLOUD_DESCRIPTORS)[number]['kind'];
export const CLOUDS: readonly CloudKind[] = CLOUD_DESCRIPTORS.map((d) => d.kind);
export const DEFAULT_CLOUD: CloudKind = 'simcloud';

export function isCloudKind(value: string): value is CloudKind {
  return (CLOUDS as readonly string[]).includes(value);
}

export function cloudOf(kind: CloudKind): CloudDescriptor<CloudKind> {
  const d = CLOUD_DESCRIPTORS.find((x) => x.kind === kind);
  if (d === undefined) throw new Error(`no cloud ${kind}`);
  return d;
}

/** Every persona's real API hostnames: what the interception proxy tunnels to (sandbox/intercept/). */
export const REAL_HOSTS: readonly RealHost[] = CLOUD_DESCRIPTORS.flatMap((d: CloudDescriptor) => d.realHosts ?? []);
