// The console's explanations: each simcloud API call (caller header + method header + HTTP method and
// path) mapped to the CCM controller that made it and the cloud-provider method it belongs to
// (InstanceMetadata, InstanceExists, InstanceShutdown, EnsureLoadBalancer, UpdateLoadBalancer,
// EnsureLoadBalancerDeleted, GetLoadBalancer, ListRoutes, CreateRoute, DeleteRoute), and each Kubernetes
// event reason to one sentence saying what happened and why. Pure: no I/O, time comes from the events.
//
// Our CCM and the upstream Go CCM both send the method they are executing (`X-Simcloud-Method`), and
// both name their controllers as upstream does, so their calls are explained alike. A CCM that sends no
// method header (one a user brought) gets a guess: one method makes several HTTP calls and a read such as
// `GET /v1/load_balancers` belongs to different methods depending on what came before it, so
// `CallExplainer` keeps a little state per caller (the method of its current burst of calls) and follows
// the order in which our provider calls the API (src/simcloud/load-balancers.ts, instances.ts, routes.ts).
// Each explanation says whether its method was sent or guessed.
import { ControllerName } from '../../src/controllers/names.ts';
import { CloudMethod } from '../../src/cloud/provider.ts';

export { CloudMethod };

const METHODS = new Set<string>(Object.values(CloudMethod));
const isCloudMethod = (v: string | null): v is CloudMethod => v !== null && METHODS.has(v);

/** Where an explanation's method comes from: the call's method header, or a guess from the call order. */
export const MethodSource = { header: 'header', inferred: 'inferred' } as const;
export type MethodSource = (typeof MethodSource)[keyof typeof MethodSource];

export const Controller = {
  node: ControllerName.CloudNode,
  lifecycle: ControllerName.CloudNodeLifecycle,
  service: ControllerName.Service,
  route: ControllerName.Route,
} as const;
export type Controller = ControllerName;

/** The part of an `api_call` SimEvent the explainer reads. */
export interface ApiCall {
  readonly time: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly caller: string | null;
  /** The `X-Simcloud-Method` header, when the CCM sent one. */
  readonly upstream_method: string | null;
  readonly error_code: string | null;
}

export interface CallExplanation {
  /** The CCM controller, or null when the caller is not the CCM. */
  readonly controller: Controller | null;
  readonly method: CloudMethod | null;
  /** null when there is no method (a call that is not the CCM's). */
  readonly methodSource: MethodSource | null;
  /** The Kubernetes object the call was made for: `Node/<name>`, `Service/<ns>/<name>`, or `Routes`. */
  readonly group: string;
  readonly title: string;
  readonly sentence: string;
  /** Reads that repeat (polls) can be folded into one timeline step. */
  readonly read: boolean;
}

/** Without a method header, a new burst starts when a caller has been quiet this long. */
export const BURST_GAP_MS = 1500;

const CONTROLLERS = new Set<string>(Object.values(Controller));

export function parseCaller(caller: string | null): { controller: Controller | null; key: string; raw: string } {
  const raw = caller ?? '';
  const space = raw.indexOf(' ');
  const head = space < 0 ? raw : raw.slice(0, space);
  const key = space < 0 ? '' : raw.slice(space + 1);
  return CONTROLLERS.has(head) ? { controller: head as Controller, key, raw } : { controller: null, key, raw };
}

/** `/v1/load_balancers/lb-1/actions/x?y` → `load_balancers`, with the rest of the path. */
export function resourceOfPath(path: string): { collection: string; id: string | null; sub: string | null } {
  const parts = path.split('?')[0]!.split('/').filter(Boolean);
  return { collection: parts[1] ?? '', id: parts[2] ?? null, sub: parts[3] ?? null };
}

function outcome(call: ApiCall): string {
  if (call.status < 300) return '';
  if (call.status === 404) return ' The cloud answered not found.';
  if (call.status === 429) return ' The cloud rate-limited the call (429): the controller backs off and retries.';
  return ` The call failed (${call.status}${call.error_code ? ` ${call.error_code}` : ''}): the controller will retry with backoff.`;
}

const isActionPoll = (call: ApiCall): boolean => call.method === 'GET' && resourceOfPath(call.path).collection === 'actions';

function groupFor(controller: Controller, key: string): string {
  if (controller === Controller.service) return `Service/${key}`;
  if (controller === Controller.route) return key === '' || key === 'list' ? 'Routes' : `Node/${key}`;
  return `Node/${key}`;
}

// ---- service-lb-controller: which method a call belongs to, from the burst so far -----------------

type LbMethod =
  | typeof CloudMethod.ensureLoadBalancer
  | typeof CloudMethod.updateLoadBalancer
  | typeof CloudMethod.ensureLoadBalancerDeleted
  | typeof CloudMethod.getLoadBalancer;

function firstLbMethod(call: ApiCall): LbMethod {
  const { collection } = resourceOfPath(call.path);
  if (call.method === 'DELETE') return CloudMethod.ensureLoadBalancerDeleted;
  if (call.method === 'GET' && collection === 'load_balancers') return CloudMethod.getLoadBalancer;
  return CloudMethod.ensureLoadBalancer;
}

/** The method of `call`, given the method of the caller's current burst (undefined at a burst start). */
export function nextLbMethod(current: LbMethod | undefined, call: ApiCall): LbMethod {
  if (current === undefined) return firstLbMethod(call);
  if (call.method === 'DELETE') return CloudMethod.ensureLoadBalancerDeleted;
  if (current !== CloudMethod.getLoadBalancer) return current;
  const { collection, sub } = resourceOfPath(call.path);
  // After GetLoadBalancer the service controller either deletes (a second LB lookup) or, in its node
  // sync, updates the hosts (server group lookup and member update).
  if (collection === 'load_balancers' && call.method === 'GET') return CloudMethod.ensureLoadBalancerDeleted;
  if (collection === 'server_groups' || sub === 'servers' || collection === 'servers') return CloudMethod.updateLoadBalancer;
  return current;
}

const LB_STEP: Record<string, string> = {
  'GET load_balancers': "looks up the Service's load balancer by its owner labels (cluster + Service UID)",
  'POST load_balancers': 'creates the load balancer: listeners from the Service ports, targets, VIP',
  'PATCH load_balancers': "brings the load balancer's listeners, targets or source ranges in line with the Service",
  'DELETE load_balancers': 'deletes the load balancer',
  'GET server_groups': "looks up the server group holding the Service's nodes",
  'POST server_groups': "creates the server group that will hold the Service's nodes (the LB target)",
  'PUT server_groups': "sets the server group's members to the servers of the current nodes",
  'add_servers server_groups': 'adds the servers of nodes that joined to the server group (only the difference is sent)',
  'remove_servers server_groups': 'removes the servers of nodes that left from the server group (only the difference is sent)',
  'DELETE server_groups': "deletes the Service's server group",
  'GET firewall_policies': 'looks up the firewall policy guarding the node ports',
  'POST firewall_policies': 'creates the firewall policy opening the node ports to the allowed sources',
  'PUT firewall_policies': 'sets the firewall rules (one per node port, from loadBalancerSourceRanges)',
  'DELETE firewall_policies': 'deletes the firewall policy',
  'GET ip_blocks': 'looks up the IP block tagged for the Service',
  'POST ip_blocks': 'allocates (or assigns) the IP block that gives the VIP',
  'DELETE ip_blocks': 'releases the IP block',
  'GET servers': "lists servers to find the node's servers",
  'GET regions': 'reads the regions to place the IP block',
  'GET actions': 'waits for the cloud action to finish',
};

const LB_METHOD_WHY: Partial<Record<CloudMethod, string>> = {
  EnsureLoadBalancer: 'EnsureLoadBalancer makes the cloud match the Service (create or update), then the controller writes the ingress IP',
  UpdateLoadBalancer: 'UpdateLoadBalancer runs when the set of ready nodes changes and only updates the targets',
  EnsureLoadBalancerDeleted:
    'EnsureLoadBalancerDeleted removes every cloud resource of a deleted (or no longer LoadBalancer) Service before its finalizer is removed',
  GetLoadBalancer: 'GetLoadBalancer asks whether the Service has a load balancer at all',
};

function lbSentence(call: ApiCall, method: CloudMethod, key: string): string {
  const { collection, sub } = resourceOfPath(call.path);
  const action = sub === 'actions' ? call.path.split('?')[0]!.split('/')[5] : undefined;
  const step = action
    ? (LB_STEP[`${action} ${collection}`] ?? `runs the ${action} action on ${collection.replace(/_/g, ' ')}`)
    : (LB_STEP[`${call.method} ${collection}`] ?? `calls ${call.method} ${call.path.split('?')[0]}`);
  const why = LB_METHOD_WHY[method];
  return `service-lb-controller ${step} for Service ${key} (${method})${why ? `: ${why}` : ''}.${outcome(call)}`;
}

// ---- the other controllers ---------------------------------------------------------------------

function nodeSentence(call: ApiCall, key: string): string {
  const base = isActionPoll(call)
    ? `cloud-node-controller waits for a cloud action for Node ${key}.`
    : `cloud-node-controller reads the server of Node ${key} (InstanceMetadata) to set its providerID, instance-type, zone and region labels and addresses, then removes the uninitialized taint.`;
  return base + outcome(call);
}

function lifecycleSentence(call: ApiCall, method: CloudMethod, key: string): string {
  if (method === CloudMethod.instanceExists) {
    const tail = call.status === 404 ? ' The cloud answered not found, so the controller deletes the Node.' : outcome(call);
    return `Node ${key} is not Ready, so cloud-node-lifecycle-controller asks the cloud whether its server still exists (InstanceExists); if not, it deletes the Node.${tail}`;
  }
  return `The server of Node ${key} exists, so cloud-node-lifecycle-controller asks whether it is shut down (InstanceShutdown); if it is off, the Node gets the node.cloudprovider.kubernetes.io/shutdown taint.${outcome(call)}`;
}

function routeMethod(call: ApiCall, key: string, current: CloudMethod | undefined): CloudMethod {
  if (key === 'list' || key === '') return CloudMethod.listRoutes;
  if (call.method === 'DELETE') return CloudMethod.deleteRoute;
  if (call.method === 'POST') return CloudMethod.createRoute;
  return current === CloudMethod.deleteRoute ? CloudMethod.deleteRoute : CloudMethod.createRoute;
}

const ROUTE_WHY: Partial<Record<CloudMethod, string>> = {
  ListRoutes:
    "node-route-controller lists the cloud routes (ListRoutes: the network's routes and the servers they point at) to compare them with every Node's podCIDR",
  CreateRoute:
    "node-route-controller creates the route sending this Node's podCIDR to the Node's internal IP (CreateRoute), then sets NetworkUnavailable=False",
  DeleteRoute: 'node-route-controller deletes a route whose Node or podCIDR is gone (DeleteRoute)',
};

function routeSentence(call: ApiCall, method: CloudMethod, key: string): string {
  const who = key && key !== 'list' ? ` (Node ${key})` : '';
  return `${ROUTE_WHY[method] ?? ''}${who}: ${call.method} ${call.path.split('?')[0]}.${outcome(call)}`;
}

function otherSentence(call: ApiCall, raw: string): string {
  const who = raw === '' ? 'A client without a caller header' : raw.startsWith('ccm-sandbox console') ? 'You, from the console,' : `${raw} (not the CCM)`;
  return `${who} called ${call.method} ${call.path.split('?')[0]}.${outcome(call)}`;
}

/** A call a CCM made outside the four controllers (e.g. the upstream CCM's start-up probe in Initialize). */
function ccmSentence(call: ApiCall, raw: string, method: CloudMethod): string {
  const why = method === CloudMethod.initialize ? ': the CCM checks at start-up that the cloud answers with its credentials' : '';
  return `The CCM (${raw || 'no caller header'}) runs ${method}${why}; it called ${call.method} ${call.path.split('?')[0]}.${outcome(call)}`;
}

interface CallerState {
  last: number;
  method: CloudMethod | undefined;
  lastStatus: number;
}

/** Explains API calls in arrival order; keeps the current method of each caller's burst. */
export class CallExplainer {
  readonly #callers = new Map<string, CallerState>();

  explain(call: ApiCall): CallExplanation {
    const { controller, key, raw } = parseCaller(call.caller);
    const title = `${call.method} ${call.path.split('?')[0]} → ${call.status}`;
    const read = call.method === 'GET';
    const sent = isCloudMethod(call.upstream_method) ? call.upstream_method : undefined;
    const base = { title, read, group: raw === '' ? 'Other' : `Caller/${raw}` };
    if (controller === null && sent !== undefined) {
      return { ...base, controller: null, method: sent, methodSource: MethodSource.header, sentence: ccmSentence(call, raw, sent) };
    }
    if (controller === null) return { ...base, controller: null, method: null, methodSource: null, sentence: otherSentence(call, raw) };
    const at = Date.parse(call.time);
    const prev = this.#callers.get(raw);
    const inBurst = prev !== undefined && at - prev.last <= BURST_GAP_MS;
    const method = sent ?? this.#method(controller, { call, key, prev: inBurst ? prev : undefined });
    this.#callers.set(raw, { last: at, method, lastStatus: call.status });
    return {
      ...base,
      controller,
      method,
      methodSource: sent === undefined ? MethodSource.inferred : MethodSource.header,
      group: groupFor(controller, key),
      sentence: this.#sentence(controller, { call, method, key }),
    };
  }

  #method(controller: Controller, a: { call: ApiCall; key: string; prev: CallerState | undefined }): CloudMethod {
    const { call, key, prev } = a;
    switch (controller) {
      case Controller.node:
        return CloudMethod.instanceMetadata;
      case Controller.lifecycle:
        return lifecycleMethod(call, this.#callers.get(call.caller ?? ''));
      case Controller.service:
        return nextLbMethod(prev?.method as LbMethod | undefined, call);
      case Controller.route:
        return routeMethod(call, key, prev?.method);
    }
  }

  #sentence(controller: Controller, a: { call: ApiCall; method: CloudMethod; key: string }): string {
    const { call, method, key } = a;
    switch (controller) {
      case Controller.node:
        return nodeSentence(call, key);
      case Controller.lifecycle:
        return lifecycleSentence(call, method, key);
      case Controller.service:
        return lbSentence(call, method, key);
      case Controller.route:
        return routeSentence(call, method, key);
    }
  }
}

/**
 * The lifecycle controller calls InstanceExists and, when the server exists, InstanceShutdown: both are
 * `GET /v1/servers/<id>`. A call right after a successful InstanceExists is InstanceShutdown.
 */
function lifecycleMethod(call: ApiCall, prev: CallerState | undefined): CloudMethod {
  if (isActionPoll(call)) return prev?.method ?? CloudMethod.instanceExists;
  const afterExists = prev?.method === CloudMethod.instanceExists && prev.lastStatus < 300;
  return afterExists ? CloudMethod.instanceShutdown : CloudMethod.instanceExists;
}

// ---- Kubernetes events ---------------------------------------------------------------------------

export interface KubeEventInput {
  readonly reason: string;
  readonly type: string;
  readonly kind: string;
  readonly name: string;
  readonly message: string;
  readonly component: string;
}

const EVENT_WHY: Record<string, (e: KubeEventInput) => string> = {
  Synced: (e) =>
    `cloud-node-controller finished initialising Node ${e.name}: providerID, labels and addresses come from the cloud (InstanceMetadata) and the uninitialized taint is gone, so pods can be scheduled.`,
  InvalidProvidedNodeIP: (e) =>
    `The kubelet of Node ${e.name} asked for a node IP the cloud does not know for its server, so cloud-node-controller refuses to initialise it.`,
  DeletingNode: (e) =>
    `cloud-node-lifecycle-controller deletes Node ${e.name}: it was NotReady and InstanceExists said its server no longer exists in the cloud.`,
  DeletingNodeFailed: (e) => `cloud-node-lifecycle-controller could not delete Node ${e.name}: ${e.message}.`,
  EnsuringLoadBalancer: (e) =>
    `service-lb-controller starts EnsureLoadBalancer for Service ${e.name}: it adds the cleanup finalizer first, then makes the cloud match the Service.`,
  EnsuredLoadBalancer: (e) =>
    `EnsureLoadBalancer succeeded for Service ${e.name}: the cloud matches the Service and the VIP goes into status.loadBalancer.ingress.`,
  SyncLoadBalancerFailed: (e) => `EnsureLoadBalancer failed for Service ${e.name} (${e.message}); the controller retries with exponential backoff.`,
  DeletingLoadBalancer: (e) => `Service ${e.name} was deleted or is no longer type LoadBalancer: service-lb-controller runs EnsureLoadBalancerDeleted.`,
  DeletedLoadBalancer: (e) =>
    `The cloud resources of Service ${e.name} are gone (EnsureLoadBalancerDeleted) and the cleanup finalizer is removed, so the Service can go.`,
  DeleteLoadBalancerFailed: (e) => `EnsureLoadBalancerDeleted failed for Service ${e.name} (${e.message}); the finalizer stays until a retry succeeds.`,
  UnAvailableLoadBalancer: (e) => `Service ${e.name} has no ready nodes to send traffic to: the load balancer is created without targets.`,
  UpdatedLoadBalancer: (e) => `The set of ready nodes changed, so service-lb-controller updated the targets of Service ${e.name} (UpdateLoadBalancer).`,
  UpdateLoadBalancerFailed: (e) => `UpdateLoadBalancer failed for Service ${e.name} (${e.message}); the node sync retries.`,
  FailedToCreateRoute: (e) => `node-route-controller could not create the route for Node ${e.name} (CreateRoute: ${e.message}); it retries on its next pass.`,
  // kube-controller-manager records NodeNotReady on the Node and on each of its Pods (marked not ready with it).
  NodeNotReady: (e) =>
    e.kind === 'Pod'
      ? `kube-controller-manager's node-lifecycle marked Pod ${e.name} not ready: the Node it runs on is NotReady.`
      : `kube-controller-manager's node-lifecycle marked Node ${e.name} NotReady: its kubelet stopped posting status (its server is off, rebooting or gone).`,
  NodeReady: (e) => `Node ${e.name} is Ready again: its kubelet posts status.`,
  RegisteredNode: (e) => `kube-controller-manager noticed the new Node ${e.name} registered by its kubelet.`,
  RemovingNode: (e) => `kube-controller-manager forgets Node ${e.name}: the Node object was deleted.`,
  CIDRNotAvailable: (e) => `kube-controller-manager's node-ipam has no podCIDR left for Node ${e.name}.`,
};

/** One sentence for a Kubernetes event: what happened and why. */
export function explainKubeEvent(e: KubeEventInput): string {
  const why = EVENT_WHY[e.reason];
  if (why) return why(e);
  const prefix = e.type === 'Warning' ? 'Warning from' : 'Event from';
  return `${prefix} ${e.component || 'an unknown component'} about ${e.kind} ${e.name}: ${e.reason} (${e.message}).`;
}

/** The upstream method an event reason reports on, if any. */
export function methodOfReason(reason: string): CloudMethod | null {
  const map: Record<string, CloudMethod> = {
    Synced: CloudMethod.instanceMetadata,
    InvalidProvidedNodeIP: CloudMethod.instanceMetadata,
    DeletingNode: CloudMethod.instanceExists,
    EnsuringLoadBalancer: CloudMethod.ensureLoadBalancer,
    EnsuredLoadBalancer: CloudMethod.ensureLoadBalancer,
    SyncLoadBalancerFailed: CloudMethod.ensureLoadBalancer,
    DeletingLoadBalancer: CloudMethod.ensureLoadBalancerDeleted,
    DeletedLoadBalancer: CloudMethod.ensureLoadBalancerDeleted,
    DeleteLoadBalancerFailed: CloudMethod.ensureLoadBalancerDeleted,
    UpdatedLoadBalancer: CloudMethod.updateLoadBalancer,
    UpdateLoadBalancerFailed: CloudMethod.updateLoadBalancer,
    FailedToCreateRoute: CloudMethod.createRoute,
  };
  return map[reason] ?? null;
}
