// @ts-check
// The guided tours: node initialisation, load balancer, node shutdown and deletion, routes. Each step may
// run an action, then lists what should happen on both sides; every expectation is checked live against
// the state and the timeline, ticks itself off, and names the elements to highlight in the Cloud and
// Cluster views.
import { slug } from './dom.js';
import { postAction } from './store.js';

/** @typedef {import('./types').ConsoleState} State */
/** @typedef {import('./types').TourContext} Ctx */
/** @typedef {import('./types').TimelineEntry} Entry */
/** @typedef {import('./types').Expectation} Expectation */

/** @type {(state: State, name: string | undefined) => import('./types').NodeView | undefined} */
const nodeOf = (state, name) => state.cluster.nodes.find((n) => n.name === name);
/** @type {(state: State, name: string | undefined) => import('./types').Server | undefined} */
const serverOf = (state, name) => state.cloud.servers.find((s) => s.name === name);
/** @type {(n: import('./types').NodeView | undefined, key: string) => boolean} */
const hasTaint = (n, key) => n?.taints.some((t) => t.key === key) ?? false;
const SHUTDOWN = 'node.cloudprovider.kubernetes.io/shutdown';
const UNINIT = 'node.cloudprovider.kubernetes.io/uninitialized';
/** @type {(ctx: Ctx, entries: Entry[]) => Entry[]} */
const since = (ctx, entries) => entries.filter((e) => e.id > ctx.stepStart);
/** @type {(ctx: Ctx, entries: Entry[], test: (e: Entry) => boolean) => boolean} */
const stepSeen = (ctx, entries, test) => since(ctx, entries).some(test);
/** @type {Expectation['highlight']} */
const serverIds = (ctx, state) => {
  const s = serverOf(state, ctx.node);
  return s ? [`cloud-server-${s.id}`] : [];
};
/** @type {(ctx: Ctx) => string[]} */
const nodeIds = (ctx) => [`cluster-node-${slug(ctx.node)}`];
/** @type {Expectation['highlight']} */
const both = (ctx, state) => [...serverIds(ctx, state), ...nodeIds(ctx)];

/** @param {Ctx} ctx */
async function addWorker(ctx) {
  const r = await postAction('worker');
  const m = /^worker (\S+)/.exec(r.message);
  if (m) ctx.node = m[1];
  return r;
}

/** @param {State} state */
function pickWorker(state) {
  const ready = state.cluster.nodes.filter((n) => n.ready === 'True' && !n.name.includes('control-plane'));
  return ready[ready.length - 1]?.name;
}

/** @type {(c: Ctx, s: State) => string | undefined} */
const routeFor = (c, s) => (c.node ? s.links.nodeToRoute[c.node] : undefined);
/** @type {Expectation['highlight']} */
const routeIds = (c, s) => {
  const n = nodeOf(s, c.node);
  return n?.podCIDR ? [`cloud-route-${slug(n.podCIDR)}`, `cluster-node-${slug(c.node)}`] : nodeIds(c);
};

const UPSTREAM = 'https://github.com/kubernetes/cloud-provider/blob/v0.37.1/controllers';
/** Where each step's work is done: our CCM's file, and the upstream function the Go CCM runs. */
const CODE = {
  node: [
    { label: 'src/controllers/node/sync.ts (our CCM)', href: null },
    { label: 'upstream CloudNodeController.syncNode', href: `${UPSTREAM}/node/node_controller.go#L416` },
  ],
  lifecycle: [
    { label: 'src/controllers/node-lifecycle/sync.ts (our CCM)', href: null },
    { label: 'upstream CloudNodeLifecycleController.MonitorNodes', href: `${UPSTREAM}/nodelifecycle/node_lifecycle_controller.go#L146` },
  ],
  service: [
    { label: 'src/controllers/service/sync.ts (our CCM)', href: null },
    { label: 'upstream Controller.syncLoadBalancerIfNeeded', href: `${UPSTREAM}/service/controller.go#L364` },
  ],
  route: [
    { label: 'src/controllers/route/sync.ts (our CCM)', href: null },
    { label: 'upstream RouteController.reconcile', href: `${UPSTREAM}/route/route_controller.go#L299` },
  ],
};

/** @type {(c: Ctx, s: State) => import('./types').PendingPodView[]} */
const pinnedPods = (c, s) => (s.cluster.pending ?? []).filter((p) => c.pods !== undefined && p.name.startsWith(`${c.pods}-`));
/** @type {(c: Ctx, s: State) => import('./types').PodView[]} */
const runningPinned = (c, s) => (nodeOf(s, c.node)?.pods ?? []).filter((p) => c.pods !== undefined && p.name.startsWith(`${c.pods}-`) && p.phase === 'Running');
/** @type {Expectation['highlight']} */
const pendingIds = (c, s) => pinnedPods(c, s).map((p) => `cluster-pending-${slug(`${p.namespace}/${p.name}`)}`);

/** Adds a worker while the CCM is held, then a pod pinned to it: the pod waits for the Node's initialisation. @param {Ctx} ctx */
async function workerWithPod(ctx) {
  const r = await addWorker(ctx);
  if (!r.ok || !ctx.node) return r;
  ctx.pods = `tour-pinned-${Math.random().toString(36).slice(2, 6)}`;
  const p = await postAction('pods', { name: ctx.pods, replicas: 1, node: ctx.node });
  return p.ok ? { ...p, message: `${r.message}; ${p.message}` } : p;
}

/** @type {import('./types').Tour[]} */
export const TOURS = [
  {
    id: 'node-init',
    title: 'Node initialisation',
    summary:
      'Hold the CCM, add a worker and a pod for it: the Node waits with the uninitialized taint and the pod is Pending. Let the CCM go: it initialises the Node and the pod runs.',
    steps: [
      {
        title: 'Hold the CCM',
        text: "The CCM's process is stopped (SIGSTOP), as if it had not started yet. Nothing will initialise a new Node until you let it go (at the latest after two minutes).",
        view: 'cluster',
        code: [],
        action: { label: 'Hold the CCM', run: () => postAction('ccm', { hold: true }) },
        expect: [{ id: 'held', label: () => 'The CCM is held', done: (c, s) => s.sandbox.ccmHeld, highlight: () => [] }],
      },
      {
        title: 'Add a worker and a pod for it',
        text: 'A new server boots; its kubelet (started with --cloud-provider=external) registers a Node carrying node.cloudprovider.kubernetes.io/uninitialized:NoSchedule. A pod pinned to that Node cannot be scheduled: it stays Pending, and the scheduler says it is the taint.',
        view: 'cluster',
        code: [],
        action: { label: 'Add a worker and a pod', run: workerWithPod },
        expect: [
          {
            id: 'server',
            label: (c) => `Cloud: server ${c.node ?? '(new)'} is running`,
            done: (c, s) => serverOf(s, c.node)?.status === 'running',
            highlight: serverIds,
          },
          {
            id: 'tainted',
            label: (c) => `Cluster: Node ${c.node ?? '(new)'} registered, with the uninitialized taint and no providerID`,
            done: (c, s) => hasTaint(nodeOf(s, c.node), UNINIT) && !nodeOf(s, c.node)?.providerID,
            highlight: nodeIds,
          },
          {
            id: 'pending',
            label: () => 'Cluster: its pod is Pending, held off by the taint',
            done: (c, s) => pinnedPods(c, s).some((p) => p.phase === 'Pending'),
            highlight: pendingIds,
          },
        ],
      },
      {
        title: 'Let the CCM go',
        text: 'The CCM runs again. cloud-node-controller finds the tainted Node and calls InstanceMetadata: it sets providerID, the instance-type, region and zone labels and the addresses, and removes the taint. The scheduler binds the pod and the kubelet runs it.',
        view: 'both',
        code: CODE.node,
        action: { label: 'Let the CCM go', run: () => postAction('ccm', { hold: false }) },
        expect: [
          {
            id: 'provider',
            label: () => 'cloud-node-controller set providerID and zone/type labels (InstanceMetadata)',
            done: (c, s) => Boolean(nodeOf(s, c.node)?.providerID && nodeOf(s, c.node)?.labels['topology.kubernetes.io/zone']),
            highlight: both,
          },
          {
            id: 'taint',
            label: () => 'The uninitialized taint is gone',
            done: (c, s) => Boolean(nodeOf(s, c.node)) && !hasTaint(nodeOf(s, c.node), UNINIT),
            highlight: nodeIds,
          },
          { id: 'running', label: () => 'Cluster: the pod runs on the Node', done: (c, s) => runningPinned(c, s).length > 0, highlight: nodeIds },
          {
            id: 'synced',
            label: () => 'Timeline: the Synced event, explained',
            done: (c, s, e) => stepSeen(c, e, (x) => x.group === `Node/${c.node}` && x.title.includes('Synced')),
            highlight: nodeIds,
          },
        ],
        after: (c) => {
          if (c.pods) void postAction('pods/delete', { name: c.pods });
        },
      },
    ],
  },
  {
    id: 'load-balancer',
    title: 'Load balancer',
    summary:
      'Two pods behind a LoadBalancer Service: the Service gets a finalizer, a cloud load balancer (with its server group and firewall policy, or IP block) and an ingress IP, and its targets turn healthy; deleting it cleans everything up.',
    setup: (ctx) => {
      ctx.service = `tour-lb-${Math.random().toString(36).slice(2, 6)}`;
    },
    steps: [
      {
        title: 'Create two pods and a LoadBalancer Service for them',
        text: "A Deployment of two pods, then a Service of type LoadBalancer selecting them. service-lb-controller adds its cleanup finalizer, then EnsureLoadBalancer creates the cloud resources and the VIP is written into the Service status. The load balancer checks each node's NodePort: a node answers once the Service has ready endpoints (without pods, every target would stay unhealthy).",
        view: 'both',
        code: CODE.service,
        action: {
          label: 'Create the pods and the Service',
          run: async (c) => {
            const p = await postAction('pods', { name: c.service ?? '', replicas: 2 });
            return p.ok ? postAction('service', { name: c.service, port: 80, annotations: {} }) : p;
          },
        },
        expect: [
          {
            id: 'endpoints',
            label: () => 'Cluster: the Service has ready endpoints (its two pods)',
            done: (c, s) => (svcOf(c, s)?.endpoints ?? []).filter((x) => x.ready).length >= 2,
            highlight: (c) => [`cluster-service-default-${c.service}`],
          },
          {
            id: 'finalizer',
            label: () => 'Cluster: the load-balancer-cleanup finalizer is on the Service',
            done: (c, s) => s.cluster.services.some((x) => x.name === c.service && x.finalizers.includes('service.kubernetes.io/load-balancer-cleanup')),
            highlight: (c) => [`cluster-service-default-${c.service}`],
          },
          {
            id: 'lb',
            label: () => 'Cloud: a load balancer owned by the Service is active',
            done: (c, s) => lbsOf(c, s).some((lb) => lb.status === 'active'),
            highlight: (c, s) => lbsOf(c, s).map((lb) => `cloud-lb-${lb.id}`),
          },
          {
            id: 'owned',
            label: () => 'Cloud: its server group and firewall policy (or IP block) exist',
            done: (c, s) => ownedCount(c, s) > 0,
            highlight: ownedIds,
          },
          {
            id: 'ingress',
            label: () => 'Cluster: status.loadBalancer.ingress holds the VIP',
            done: (c, s) => {
              const lb = lbsOf(c, s)[0];
              return Boolean(lb) && svcOf(c, s)?.ingress.includes(lb.public_ipv4);
            },
            highlight: (c) => [`cluster-service-default-${c.service}`],
          },
          {
            id: 'ensured',
            label: () => 'Timeline: EnsuredLoadBalancer, explained',
            done: (c, s, e) => stepSeen(c, e, (x) => x.title.includes('EnsuredLoadBalancer') && x.group === `Service/default/${c.service}`),
            highlight: () => [],
          },
        ],
        after: (c, s) => {
          c.lbIds = lbsOf(c, s).map((lb) => lb.id);
        },
      },
      {
        title: 'Delete the Service and its pods',
        text: 'The finalizer holds the Service while EnsureLoadBalancerDeleted removes the load balancer and everything made for it; then the finalizer goes and so does the Service.',
        view: 'both',
        code: CODE.service,
        action: {
          label: 'Delete the Service',
          run: async (c) => {
            await postAction('pods/delete', { name: c.service ?? '' });
            return postAction('service/delete', { name: c.service, namespace: 'default' });
          },
        },
        expect: [
          {
            id: 'lb-gone',
            label: () => 'Cloud: the load balancer is gone',
            done: (c, s) => !s.cloud.loadBalancers.some((lb) => (c.lbIds ?? []).includes(lb.id)),
            highlight: () => [],
          },
          { id: 'svc-gone', label: () => 'Cluster: the Service is gone', done: (c, s) => !svcOf(c, s), highlight: () => [] },
          {
            id: 'deleted',
            label: () => 'Timeline: DeletedLoadBalancer, explained',
            done: (c, s, e) => stepSeen(c, e, (x) => x.title.includes('DeletedLoadBalancer')),
            highlight: () => [],
          },
        ],
      },
    ],
  },
  {
    id: 'shutdown',
    title: 'Node shutdown and deletion',
    summary: 'Power a worker off (NotReady, then the shutdown taint), on again (taint lifted), then delete its server (the Node is deleted).',
    setup: (ctx, state) => {
      ctx.node = pickWorker(state);
    },
    steps: [
      {
        title: 'Power the worker off',
        view: 'both',
        code: CODE.lifecycle,
        text: 'Its kubelet goes silent; kube-controller-manager marks the Node NotReady; cloud-node-lifecycle-controller asks InstanceExists (yes) and InstanceShutdown (yes) and adds the shutdown taint.',
        action: { label: 'Power off', run: (c, s) => postAction('server', { serverId: serverOf(s, c.node)?.id ?? '', action: 'poweroff' }) },
        expect: [
          { id: 'off', label: (c) => `Cloud: server ${c.node} is off`, done: (c, s) => serverOf(s, c.node)?.status === 'off', highlight: serverIds },
          { id: 'notready', label: (c) => `Cluster: Node ${c.node} is NotReady`, done: (c, s) => nodeOf(s, c.node)?.ready !== 'True', highlight: nodeIds },
          { id: 'taint', label: () => 'Cluster: the shutdown taint is on the Node', done: (c, s) => hasTaint(nodeOf(s, c.node), SHUTDOWN), highlight: nodeIds },
          {
            id: 'explained',
            label: () => 'Timeline: InstanceShutdown, explained',
            done: (c, s, e) => stepSeen(c, e, (x) => x.method === 'InstanceShutdown' && x.group === `Node/${c.node}`),
            highlight: () => [],
          },
        ],
      },
      {
        title: 'Power it on again',
        view: 'both',
        code: CODE.lifecycle,
        text: 'The kubelet posts Ready again, and cloud-node-lifecycle-controller removes the shutdown taint.',
        action: { label: 'Power on', run: (c, s) => postAction('server', { serverId: serverOf(s, c.node)?.id ?? '', action: 'poweron' }) },
        expect: [
          {
            id: 'running',
            label: (c) => `Cloud: server ${c.node} is running`,
            done: (c, s) => serverOf(s, c.node)?.status === 'running',
            highlight: serverIds,
          },
          { id: 'ready', label: (c) => `Cluster: Node ${c.node} is Ready`, done: (c, s) => nodeOf(s, c.node)?.ready === 'True', highlight: nodeIds },
          {
            id: 'untainted',
            label: () => 'Cluster: the shutdown taint is gone',
            done: (c, s) => Boolean(nodeOf(s, c.node)) && !hasTaint(nodeOf(s, c.node), SHUTDOWN),
            highlight: nodeIds,
          },
        ],
        after: (c, s) => {
          c.podCIDR = nodeOf(s, c.node)?.podCIDR ?? undefined;
        },
      },
      {
        title: 'Delete its server',
        view: 'both',
        code: [...CODE.lifecycle, ...CODE.route],
        text: 'The Node goes NotReady; InstanceExists now answers not found, so cloud-node-lifecycle-controller deletes the Node, and node-route-controller deletes its route.',
        action: { label: 'Delete the server', run: (c, s) => postAction('server', { serverId: serverOf(s, c.node)?.id ?? '', action: 'delete' }) },
        expect: [
          { id: 'server-gone', label: (c) => `Cloud: server ${c.node} is gone`, done: (c, s) => !serverOf(s, c.node), highlight: () => [] },
          { id: 'node-gone', label: (c) => `Cluster: Node ${c.node} is deleted`, done: (c, s) => !nodeOf(s, c.node), highlight: () => [] },
          {
            id: 'route-gone',
            label: () => 'Cloud: its route is removed',
            done: (c, s) => !s.cloud.networks.some((n) => n.routes.some((r) => r.destination === c.podCIDR)),
            highlight: () => [],
          },
        ],
      },
    ],
  },
  {
    id: 'routes',
    title: 'Routes',
    summary: "Every Node podCIDR gets a cloud route to the Node's internal IP; a new Node gets its own.",
    steps: [
      {
        title: 'Look at the routes',
        view: 'both',
        code: CODE.route,
        text: 'kube-controller-manager gives each Node a podCIDR; node-route-controller lists the cloud routes (ListRoutes) and creates one per podCIDR (CreateRoute), then sets NetworkUnavailable=False.',
        expect: [
          {
            id: 'all-routed',
            label: () => 'Every Node with a podCIDR has a route',
            done: (c, s) => s.cluster.nodes.every((n) => !n.podCIDR || s.links.nodeToRoute[n.name]),
            highlight: (c, s) => s.cluster.nodes.filter((n) => n.podCIDR).flatMap((n) => [`cluster-node-${slug(n.name)}`, `cloud-route-${slug(n.podCIDR)}`]),
          },
          {
            id: 'network',
            label: () => 'Every Node has NetworkUnavailable=False',
            done: (c, s) => s.cluster.nodes.every((n) => n.networkUnavailable === 'False'),
            highlight: () => [],
          },
        ],
      },
      {
        title: 'Add a worker and watch its route appear',
        view: 'both',
        code: CODE.route,
        text: 'The new Node gets a podCIDR from node-ipam; on its next pass node-route-controller creates the route.',
        action: { label: 'Add a worker', run: addWorker },
        expect: [
          {
            id: 'node',
            label: (c) => `Cluster: Node ${c.node ?? '(new)'} has a podCIDR`,
            done: (c, s) => Boolean(nodeOf(s, c.node)?.podCIDR),
            highlight: nodeIds,
          },
          { id: 'route', label: () => 'Cloud: a route for its podCIDR', done: (c, s) => Boolean(routeFor(c, s)), highlight: routeIds },
          {
            id: 'explained',
            label: () => 'Timeline: CreateRoute, explained',
            done: (c, s, e) => stepSeen(c, e, (x) => x.method === 'CreateRoute' && x.group === `Node/${c.node}`),
            highlight: () => [],
          },
        ],
      },
    ],
  },
];

/**
 * @param {Ctx} c
 * @param {State} s
 */
function svcOf(c, s) {
  return s.cluster.services.find((x) => x.name === c.service && x.namespace === 'default');
}

/**
 * @param {Ctx} c
 * @param {State} s
 */
function lbsOf(c, s) {
  const ids = s.links.serviceToCloud[`default/${c.service}`]?.loadBalancers ?? [];
  return s.cloud.loadBalancers.filter((lb) => ids.includes(lb.id));
}

/**
 * @param {Ctx} c
 * @param {State} s
 */
function ownedCount(c, s) {
  const l = s.links.serviceToCloud[`default/${c.service}`];
  return l ? l.serverGroups.length + l.firewallPolicies.length + l.ipBlocks.length : 0;
}

/**
 * @param {Ctx} c
 * @param {State} s
 * @returns {string[]}
 */
function ownedIds(c, s) {
  const l = s.links.serviceToCloud[`default/${c.service}`];
  if (!l) return [];
  return [
    ...l.serverGroups.map((id) => `cloud-group-${id}`),
    ...l.firewallPolicies.map((id) => `cloud-policy-${id}`),
    ...l.ipBlocks.map((id) => `cloud-ipblock-${id}`),
  ];
}
