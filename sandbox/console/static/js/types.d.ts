// The data the console server sends the browser, typed from the server's own TypeScript (the console server
// beside this page, and simcloud's wire schema below it), so the browser code is checked against what the
// server really sends.
import type { ConsoleState } from '../../hub.ts';
import type { CloudSnapshot } from '../../cloud.ts';
import type { TimelineEntry } from '../../timeline.ts';
import type { annotationChoices } from '../../actions.ts';

export type { ConsoleState } from '../../hub.ts';
export type { TimelineEntry } from '../../timeline.ts';
export type { CloudSnapshot } from '../../cloud.ts';
export type { ClusterSnapshot, NodeView, ServiceView } from '../../cluster.ts';
export type { PendingPodView, PodView } from '../../workloads.ts';
export type { Links } from '../../links.ts';
export type { Server } from '../../../../simulator/api/schema/servers.ts';
export type { LoadBalancerService, LoadBalancerTarget, ResolvedTarget } from '../../../../simulator/api/schema/load-balancers.ts';
export type { FirewallRule } from '../../../../simulator/api/schema/firewall-policies.ts';
export type { Network, Route } from '../../../../simulator/api/schema/networks.ts';

/** A load balancer as the Cloud view gets it: with its per-target traffic counters. */
export type CloudLoadBalancer = CloudSnapshot['loadBalancers'][number];
/** One annotation of the provider's registry, for the example-Service form. */
export type AnnotationChoice = ReturnType<typeof annotationChoices>[number];
/** What an action POST resolved to. */
export interface ActionResult {
  ok: boolean;
  message: string;
  field: string | null;
}
/** The browser's store: the last state, the timeline by id, the stream's status. */
export interface Store {
  state: ConsoleState | null;
  entries: Map<number, TimelineEntry>;
  connection: 'connecting' | 'live' | 'reconnecting';
  annotations: AnnotationChoice[];
  lastChange?: string;
}

/** What a guided tour remembers while it runs: the step's first timeline entry, its worker and Service. */
export interface TourContext {
  stepStart: number;
  node?: string;
  service?: string;
  /** The load balancers of the tour's Service, remembered before it is deleted. */
  lbIds?: string[];
  /** The podCIDR of the tour's Node, remembered before it is deleted. */
  podCIDR?: string;
  /** The Deployment of pods the tour made (the node tour's pinned pod). */
  pods?: string;
  /** Whether step N's action succeeded. */
  [ran: `ran${number}`]: boolean | undefined;
}
/** One thing a tour step waits for, checked live against the state and the timeline. */
export interface Expectation {
  id: string;
  label(ctx: TourContext): string;
  done(ctx: TourContext, state: ConsoleState, entries: TimelineEntry[]): unknown;
  /** Element ids to highlight in the Cloud and Cluster views. */
  highlight(ctx: TourContext, state: ConsoleState): string[];
}
export interface TourStep {
  title: string;
  text: string;
  /** The tab the step is about: the tour shows it and scrolls to the first highlighted element. */
  view: 'both' | 'cloud' | 'cluster' | 'timeline';
  /** Where the step's work is done: a file of our CCM (href null) or an upstream function. */
  code: { label: string; href: string | null }[];
  action?: { label: string; run(ctx: TourContext, state: ConsoleState): Promise<ActionResult> };
  expect: Expectation[];
  after?(ctx: TourContext, state: ConsoleState): void;
}
export interface Tour {
  id: string;
  title: string;
  summary: string;
  setup?(ctx: TourContext, state: ConsoleState): void;
  steps: TourStep[];
}
