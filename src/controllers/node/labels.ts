/**
 * Label rules of the cloud-node-controller (upstream `node_controller.go` and
 * `node/helpers/labels.go`): labels written at initialisation, and the beta→GA reconciliation that is
 * the only label change after initialisation.
 */
import type { V1Node } from '@kubernetes/client-node';
import type { InstanceMetadata } from '../../cloud/instances.ts';

export const Label = {
  InstanceType: 'node.kubernetes.io/instance-type',
  InstanceTypeBeta: 'beta.kubernetes.io/instance-type',
  Zone: 'topology.kubernetes.io/zone',
  ZoneBeta: 'failure-domain.beta.kubernetes.io/zone',
  Region: 'topology.kubernetes.io/region',
  RegionBeta: 'failure-domain.beta.kubernetes.io/region',
} as const;

/** Primary (beta, source of truth) → secondary (GA) label pairs. */
export const BetaToGALabels: ReadonlyArray<readonly [string, string]> = [
  [Label.ZoneBeta, Label.Zone],
  [Label.RegionBeta, Label.Region],
  [Label.InstanceTypeBeta, Label.InstanceType],
];

/**
 * Labels to write on an initialised node: each GA label missing or different from its beta label gets
 * the beta value. Empty when nothing needs to change.
 */
export function reconcileBetaToGALabels(labels: Readonly<Record<string, string>>): Record<string, string> {
  const update: Record<string, string> = {};
  for (const [primary, secondary] of BetaToGALabels) {
    const value = labels[primary];
    if (value === undefined) continue;
    if (labels[secondary] !== value) update[secondary] = value;
  }
  return update;
}

/**
 * The Kubernetes label namespace as upstream v0.32+: `(^|\.)(kubernetes|k8s)\.io/`. (v0.30/v0.31
 * used the looser unanchored `(kubernetes|k8s).io/`.)
 */
const kubernetesNamespace = /(^|\.)(kubernetes|k8s)\.io\//;

export function isKubernetesNamespacedLabel(key: string): boolean {
  return kubernetesNamespace.test(key);
}

/** A warning produced while computing labels (logged by the caller). */
export interface LabelWarning {
  key: string;
  message: string;
}

/**
 * Labels to set at initialisation: instance type, zone and region (GA + beta, overwriting), then the
 * additional labels (never overwriting an existing key, Kubernetes-namespaced keys dropped).
 */
export function initialLabels(
  existing: Readonly<Record<string, string>>,
  metadata: InstanceMetadata,
): { labels: Record<string, string>; warnings: LabelWarning[] } {
  const labels: Record<string, string> = {};
  if (metadata.instanceType) Object.assign(labels, { [Label.InstanceType]: metadata.instanceType, [Label.InstanceTypeBeta]: metadata.instanceType });
  if (metadata.zone) Object.assign(labels, { [Label.Zone]: metadata.zone, [Label.ZoneBeta]: metadata.zone });
  if (metadata.region) Object.assign(labels, { [Label.Region]: metadata.region, [Label.RegionBeta]: metadata.region });
  const warnings: LabelWarning[] = [];
  for (const [key, value] of Object.entries(metadata.additionalLabels)) {
    const warning = additionalLabelWarning(existing, key, value);
    if (warning) warnings.push(warning);
    else if (!(key in existing)) labels[key] = value;
  }
  return { labels, warnings };
}

function additionalLabelWarning(existing: Readonly<Record<string, string>>, key: string, value: string): LabelWarning | undefined {
  if (isKubernetesNamespacedLabel(key)) {
    return { key, message: `Discarding node label ${key} with kubernetes namespace` };
  }
  const current = existing[key];
  if (current !== undefined && current !== value) {
    return { key, message: `Discarding node label ${key} that is already present` };
  }
  return undefined;
}

/** The node's labels (empty object when none). */
export function nodeLabels(node: V1Node): Record<string, string> {
  return node.metadata?.labels ?? {};
}
