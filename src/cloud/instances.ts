/**
 * Upstream `InstancesV2`: instance lookups that take the whole Node, so a provider can use
 * `spec.providerID` first and fall back to the node name or labels.
 */
import type { V1Node, V1NodeAddress } from '@kubernetes/client-node';
import type { CallContext } from './provider.ts';

/** Upstream `cloudprovider.InstanceMetadata`. */
export interface InstanceMetadata {
  /** `<providerName>://<id>`; may be empty, then the node's own providerID must already be set. */
  readonly providerID: string;
  /** Sets `node.kubernetes.io/instance-type` (+ beta) at initialisation when non-empty. */
  readonly instanceType: string;
  /** InternalIP / ExternalIP / Hostname ... in the cloud's order. */
  readonly nodeAddresses: readonly V1NodeAddress[];
  /** Sets `topology.kubernetes.io/zone` (+ beta) at initialisation when non-empty. */
  readonly zone: string;
  /** Sets `topology.kubernetes.io/region` (+ beta) at initialisation when non-empty. */
  readonly region: string;
  /** Extra labels; never overwrite existing node labels, Kubernetes-namespaced keys are dropped. */
  readonly additionalLabels: Readonly<Record<string, string>>;
}

export interface InstancesV2 {
  /**
   * Upstream `InstanceExists`: true if the instance for the node exists (a shut-down instance still
   * exists). Returns false only when the cloud definitely reports the instance missing; a failed
   * lookup must throw, never answer false (the lifecycle controller deletes the Node on false).
   */
  instanceExists(node: V1Node, ctx?: CallContext): Promise<boolean>;
  /** Upstream `InstanceShutdown`: true if the instance exists and is powered off. */
  instanceShutdown(node: V1Node, ctx?: CallContext): Promise<boolean>;
  /**
   * Upstream `InstanceMetadata`: metadata used to initialise the node. `undefined` (upstream `nil`
   * with no error) means "nothing to say yet": the node controller skips the node silently, without
   * requeueing. Throws `InstanceNotFoundError` or any other error to keep the node tainted and retry.
   */
  instanceMetadata(node: V1Node, ctx?: CallContext): Promise<InstanceMetadata | undefined>;
}
