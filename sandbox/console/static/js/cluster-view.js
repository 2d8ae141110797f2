// @ts-check
// The Cluster view: Nodes (Ready, taints, providerID, labels, addresses, podCIDR, the pods on them) and
// Services of type LoadBalancer (finalizer, ingress, the endpoints behind them), each linked to the cloud
// resources the CCM made for it.
import { badge, cell, empty, esc, jump, section, slug } from './dom.js';

/** @typedef {import('./types').NodeView} NodeView */
/** @typedef {import('./types').ServiceView} ServiceView */
/** @typedef {import('./types').ClusterSnapshot} ClusterSnapshot */
/** @typedef {import('./types').Links} Links */

const SHOWN_LABELS = ['node.kubernetes.io/instance-type', 'topology.kubernetes.io/zone', 'topology.kubernetes.io/region'];
/** @type {Record<string, string>} */
const TAINT_KIND = { 'node.cloudprovider.kubernetes.io/shutdown': 'bad', 'node.cloudprovider.kubernetes.io/uninitialized': 'warn' };

/** @param {NodeView} n */
function taints(n) {
  if (n.taints.length === 0) return '<span class="muted">none</span>';
  return n.taints.map((t) => badge(`${t.key}:${t.effect}`, TAINT_KIND[t.key] ?? 'neutral', `node-${slug(n.name)}-taint-${slug(t.key)}`)).join(' ');
}

/** @param {NodeView} n */
function labels(n) {
  const shown = SHOWN_LABELS.filter((k) => n.labels[k])
    .map((k) => `<li class="mono">${esc(k.split('/')[1])}=${esc(n.labels[k])}</li>`)
    .join('');
  const all = Object.entries(n.labels)
    .map(([k, v]) => `<li class="mono">${esc(k)}=${esc(v)}</li>`)
    .join('');
  return `<ul class="plain">${shown || '<li class="muted">no cloud labels yet</li>'}</ul><details><summary>all ${Object.keys(n.labels).length} labels</summary><ul class="plain">${all}</ul></details>`;
}

/**
 * @param {NodeView} n
 * @param {Links} links
 */
function providerCell(n, links) {
  const server = links.nodeToServer[n.name];
  if (!n.providerID) return '<span class="muted">not set (uninitialized)</span>';
  return server
    ? jump(`cloud-server-${server}`, n.providerID, `node-${slug(n.name)}-server-link`)
    : `<span class="mono">${esc(n.providerID)}</span> <span class="muted">(server gone)</span>`;
}

/**
 * @param {NodeView} n
 * @param {Links} links
 */
function podCidrCell(n, links) {
  if (!n.podCIDR) return '<span class="muted">—</span>';
  return links.nodeToRoute[n.name]
    ? jump(`cloud-route-${slug(n.podCIDR)}`, n.podCIDR, `node-${slug(n.name)}-route-link`)
    : `<span class="mono">${esc(n.podCIDR)}</span> <span class="muted">(no route yet)</span>`;
}

/** @param {NodeView} n */
function podsCell(n) {
  if (n.pods.length === 0) return '<span class="muted">no pods</span>';
  const items = n.pods.map(
    (p) =>
      `<li class="mono">${esc(`${p.namespace}/${p.name}`)} ${badge(p.ready ? 'Ready' : p.phase, p.ready ? 'ok' : 'warn')}${p.ip ? ` <span class="muted">${esc(p.ip)}</span>` : ''}</li>`,
  );
  return `<ul class="plain" data-testid="node-${esc(slug(n.name))}-pods">${items.join('')}</ul>`;
}

/**
 * @param {NodeView} n
 * @param {Links} links
 */
function nodeRow(n, links) {
  const ready = n.ready === 'True' ? badge('Ready', 'ok', `node-ready-${slug(n.name)}`) : badge(`NotReady (${n.ready})`, 'bad', `node-ready-${slug(n.name)}`);
  const addresses = n.addresses.map((a) => `<li class="mono">${esc(a.type)} ${esc(a.address)}</li>`).join('');
  return `<tr id="cluster-node-${esc(slug(n.name))}" data-testid="node-${esc(slug(n.name))}" data-ready="${esc(n.ready)}">
    <th scope="row"><span class="name">${esc(n.name)}</span></th>${cell('Ready, taints', `${ready}<div class="taints">${taints(n)}</div>`)}${cell('providerID → server', providerCell(n, links))}
    ${cell('Labels', labels(n))}${cell('Addresses', `<ul class="plain">${addresses || '<li class="muted">none</li>'}</ul>`)}
    ${cell('podCIDR → route', `${podCidrCell(n, links)}${n.networkUnavailable ? `<div class="muted">NetworkUnavailable=<wbr>${esc(n.networkUnavailable)}</div>` : ''}`)}${cell('Pods', podsCell(n))}</tr>`;
}

/**
 * @param {ClusterSnapshot} cluster
 * @param {Links} links
 */
function nodes(cluster, links) {
  if (cluster.nodes.length === 0) return section('Nodes', 'cluster-nodes', empty('No Nodes registered yet.', 'cluster-nodes-empty'), 0);
  const head =
    '<tr><th scope="col">Node</th><th scope="col">Ready, taints</th><th scope="col">providerID → server</th><th scope="col">Labels</th><th scope="col">Addresses</th><th scope="col">podCIDR → route</th><th scope="col">Pods</th></tr>';
  return section(
    'Nodes',
    'cluster-nodes',
    `<div class="scroll"><table class="cards-on-phone"><thead>${head}</thead><tbody>${cluster.nodes.map((n) => nodeRow(n, links)).join('')}</tbody></table></div>`,
    cluster.nodes.length,
  );
}

/**
 * @param {string} key
 * @param {Links} links
 */
function cloudLinks(key, links) {
  const l = links.serviceToCloud[key];
  if (!l) return '<span class="muted">none yet</span>';
  const items = [
    ...l.loadBalancers.map((id) => jump(`cloud-lb-${id}`, `load balancer ${id}`, `service-${slug(key)}-lb-link`)),
    ...l.serverGroups.map((id) => jump(`cloud-group-${id}`, `server group ${id}`, `service-${slug(key)}-group-link`)),
    ...l.firewallPolicies.map((id) => jump(`cloud-policy-${id}`, `firewall policy ${id}`, `service-${slug(key)}-policy-link`)),
    ...l.ipBlocks.map((id) => jump(`cloud-ipblock-${id}`, `IP block ${id}`, `service-${slug(key)}-ipblock-link`)),
  ];
  return items.length ? `<ul class="plain">${items.map((i) => `<li>${i}</li>`).join('')}</ul>` : '<span class="muted">none yet</span>';
}

/**
 * The addresses traffic for the Service finally reaches, from its EndpointSlices.
 * @param {ServiceView} s
 * @param {string} key
 */
function endpointsCell(s, key) {
  if (s.endpoints.length === 0) return '<span class="muted">none (no ready pod matches the selector)</span>';
  const items = s.endpoints.map(
    (e) =>
      `<li class="mono">${esc(e.ip)}${e.node ? ` <span class="muted">on ${esc(e.node)}</span>` : ''}${e.ready ? '' : ` ${badge('not ready', 'warn')}`}</li>`,
  );
  return `<ul class="plain" data-testid="service-${esc(slug(key))}-endpoints">${items.join('')}</ul>`;
}

/**
 * @param {ServiceView} s
 * @param {Links} links
 */
function serviceRow(s, links) {
  const key = `${s.namespace}/${s.name}`;
  const fin = s.finalizers.includes('service.kubernetes.io/load-balancer-cleanup');
  const ann = Object.entries(s.annotations).filter(([k]) => !k.startsWith('kubectl.kubernetes.io/'));
  return `<tr id="cluster-service-${esc(slug(key))}" data-testid="service-${esc(slug(key))}">
    <th scope="row">${esc(key)}${s.deleting ? ` ${badge('deleting', 'warn')}` : ''}</th>
    <td>${fin ? badge('load-balancer-cleanup', 'ok', `service-${slug(key)}-finalizer`) : '<span class="muted">none</span>'}</td>
    <td class="mono" data-testid="service-${esc(slug(key))}-ingress">${esc(s.ingress.join(', ') || 'pending')}</td>
    <td class="mono">${esc(s.ports.map((p) => `${p.port}→${p.nodePort ?? '?'}`).join(', '))}</td>
    <td><ul class="plain">${ann.map(([k, v]) => `<li class="mono">${esc(k.replace('loadbalancer.simcloud.dev/', ''))}=${esc(v)}</li>`).join('') || '<li class="muted">none</li>'}</ul></td>
    <td>${endpointsCell(s, key)}</td>
    <td>${cloudLinks(key, links)}</td>
    <td><button type="button" class="small danger" data-service-delete="${esc(s.name)}" data-namespace="${esc(s.namespace)}" data-testid="service-${esc(slug(key))}-delete" aria-label="Delete Service ${esc(key)}">Delete</button></td></tr>`;
}

/**
 * @param {ClusterSnapshot} cluster
 * @param {Links} links
 */
function services(cluster, links) {
  if (cluster.services.length === 0)
    return section(
      'LoadBalancer Services',
      'cluster-services',
      empty('No Service of type LoadBalancer. Create one from the Actions view.', 'cluster-services-empty'),
      0,
    );
  const head =
    '<tr><th scope="col">Service</th><th scope="col">Finalizer</th><th scope="col">Ingress</th><th scope="col">Ports</th><th scope="col">Annotations</th><th scope="col">Endpoints</th><th scope="col">Cloud resources</th><th scope="col">Actions</th></tr>';
  return section(
    'LoadBalancer Services',
    'cluster-services',
    `<div class="scroll"><table><thead>${head}</thead><tbody>${cluster.services.map((s) => serviceRow(s, links)).join('')}</tbody></table></div>`,
    cluster.services.length,
  );
}

/**
 * Pods no Node has taken: the scheduler's reason says what they wait for (e.g. the uninitialized taint).
 * @param {ClusterSnapshot} cluster
 */
function pending(cluster) {
  const list = cluster.pending ?? [];
  if (list.length === 0) return '';
  const rows = list
    .map(
      (p) => `<tr id="cluster-pending-${esc(slug(`${p.namespace}/${p.name}`))}" data-testid="pending-pod-${esc(slug(p.name))}">
    <th scope="row" class="mono">${esc(`${p.namespace}/${p.name}`)}</th><td>${badge(p.phase, 'warn')}</td><td>${esc(p.reason ?? 'not scheduled yet')}</td></tr>`,
    )
    .join('');
  const head = '<tr><th scope="col">Pod</th><th scope="col">Phase</th><th scope="col">Why it waits (the scheduler)</th></tr>';
  return section('Pending pods', 'cluster-pending', `<div class="scroll"><table><thead>${head}</thead><tbody>${rows}</tbody></table></div>`, list.length);
}

/** @param {import('./types').ConsoleState} state */
export function clusterHtml(state) {
  const { cluster, links } = state;
  const error = cluster.ok
    ? ''
    : `<div class="error" role="alert" data-testid="cluster-error"><strong>The cluster is unreachable.</strong> ${esc(cluster.error)}${cluster.updatedAt ? ' Showing the last state seen.' : ''}</div>`;
  if (!cluster.ok && !cluster.updatedAt)
    return `${error}<p class="empty" data-testid="cluster-unknown">Nothing to show until the Kubernetes API answers; this view fills in by itself when it does.</p>`;
  return error + nodes(cluster, links) + pending(cluster) + services(cluster, links);
}
