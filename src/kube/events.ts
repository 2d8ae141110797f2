/**
 * Events: upstream reasons as constants, the event sources (upstream's component names per controller), and the recorder port.
 * `KubeEventRecorder` (event-recorder.ts) writes Kubernetes Events with client-go-like aggregation and
 * logs the same sentence; `MemoryEventRecorder` keeps them in memory for tests.
 */
import type { V1ObjectReference } from '@kubernetes/client-node';

export const EventType = { Normal: 'Normal', Warning: 'Warning' } as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

/** Event source components, exactly as upstream (note the route controller's underscore). */
export const EventSource = {
  CloudNode: 'cloud-node-controller',
  CloudNodeLifecycle: 'cloud-node-lifecycle-controller',
  Service: 'service-controller',
  Route: 'route_controller',
} as const;
export type EventSource = (typeof EventSource)[keyof typeof EventSource];

/** Upstream event reasons. */
export const Reason = {
  // cloud-node-controller
  Synced: 'Synced',
  /** Not upstream: the provided node IP matches no cloud address (the node stays tainted). */
  InvalidProvidedNodeIP: 'InvalidProvidedNodeIP',
  // cloud-node-lifecycle-controller
  DeletingNode: 'DeletingNode',
  DeletingNodeFailed: 'DeletingNodeFailed',
  // service-controller
  EnsuringLoadBalancer: 'EnsuringLoadBalancer',
  EnsuredLoadBalancer: 'EnsuredLoadBalancer',
  SyncLoadBalancerFailed: 'SyncLoadBalancerFailed',
  DeletingLoadBalancer: 'DeletingLoadBalancer',
  DeletedLoadBalancer: 'DeletedLoadBalancer',
  DeleteLoadBalancerFailed: 'DeleteLoadBalancerFailed',
  UnAvailableLoadBalancer: 'UnAvailableLoadBalancer',
  UpdatedLoadBalancer: 'UpdatedLoadBalancer',
  UpdateLoadBalancerFailed: 'UpdateLoadBalancerFailed',
  // route_controller
  FailedToCreateRoute: 'FailedToCreateRoute',
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

export interface EventRecorder {
  /** Records an Event about `object` and logs the same sentence. Never throws, never blocks. */
  event(object: V1ObjectReference, type: EventType, reason: string, message: string): void;
}

/** The reference upstream builds for an object (Kind, name, namespace, UID). */
export function objectReference(
  kind: string,
  obj: { metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string } },
  apiVersion = 'v1',
): V1ObjectReference {
  const meta = obj.metadata ?? {};
  return {
    apiVersion,
    kind,
    name: meta.name,
    namespace: meta.namespace,
    uid: meta.uid,
    resourceVersion: meta.resourceVersion,
  };
}

/** One recorded event (what `MemoryEventRecorder` keeps). */
export interface RecordedEvent {
  object: V1ObjectReference;
  type: EventType;
  reason: string;
  message: string;
}

/** A recorder for tests: keeps events in order. */
export class MemoryEventRecorder implements EventRecorder {
  readonly events: RecordedEvent[] = [];
  event(object: V1ObjectReference, type: EventType, reason: string, message: string): void {
    this.events.push({ object, type, reason, message });
  }
  /** `"<type> <reason> <message>"` lines, handy for assertions. */
  lines(): string[] {
    return this.events.map((e) => `${e.type} ${e.reason} ${e.message}`);
  }
  reasons(): string[] {
    return this.events.map((e) => e.reason);
  }
}
