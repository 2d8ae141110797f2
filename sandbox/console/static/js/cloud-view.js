// @ts-check
// The Cloud view: what simcloud holds, read through the console server: servers, load balancers
// (listeners, targets with health, VIP, traffic counters), server groups, firewall policies, IP blocks,
// networks and routes, actions in progress and active fault rules, each linked to its Kubernetes object.
import { badge, cell, empty, esc, jump, section, slug, timeOf } from './dom.js';

/** @typedef {import('./types').CloudSnapshot} Cloud */
/** @typedef {import('./types').Server} Server */
/** @typedef {import('./types').Links} Links */

/** @type {Record<string, string>} */
const STATUS_KIND = {
  running: 'ok',
  active: 'ok',
  healthy: 'ok',
  off: 'bad',
  error: 'bad',
  unhealthy: 'bad',
  deleting: 'warn',
  stopping: 'warn',
  starting: 'warn',
  initializing: 'warn',
  provisioning: 'warn',
  updating: 'warn',
  assigned: 'ok',
};
/** @param {string} status */
const kindOf = (status) => STATUS_KIND[status] ?? 'neutral';

/** @param {Server} s */
function serverButtons(s) {
  const ops = [
    ['poweroff', 'Off', 'Power off', s.status !== 'running'],
    ['poweron', 'On', 'Power on', s.status !== 'off'],
    ['reboot', 'Reboot', 'Reboot', s.status !== 'running'],
    ['delete', 'Delete', 'Delete', s.status === 'deleting'],
  ];
  return ops
    .map(
      ([op, short, label, disabled]) =>
        `<button type="button" class="small${op === 'delete' ? ' danger' : ''}" data-server-op="${op}" data-server-id="${esc(s.id)}" data-server-name="${esc(s.name)}" data-testid="server-${esc(slug(s.name))}-${op}"${disabled ? ' disabled' : ''} aria-label="${esc(label)} ${esc(s.name)}" title="${esc(label)}">${esc(short)}</button>`,
    )
    .join('');
}

/**
 * The same resource in the cloud's words (`Linode: NodeBalancer 10`), under simcloud's id (nothing on simcloud).
 * @param {string} id
 * @param {Links} links
 */
function personaId(id, links) {
  const spelled = links.personaIds[id];
  return spelled ? `<div class="muted mono" data-testid="persona-id-${esc(id)}">${esc(spelled)}</div>` : '';
}

/**
 * @param {Server} s
 * @param {Links} links
 */
function serverRow(s, links) {
  const node = links.serverToNode[s.id];
  const nodeCell = node ? jump(`cluster-node-${slug(node)}`, node, `server-${slug(s.name)}-node-link`) : '<span class="muted">no Node</span>';
  const ips = `<span class="mono">${esc(s.public_ipv4 ?? '—')}</span><br><span class="mono muted">${esc(s.private_ipv4 ?? '—')}</span>`;
  return `<tr id="cloud-server-${esc(s.id)}" data-testid="server-${esc(slug(s.name))}" data-status="${esc(s.status)}">
    <th scope="row"><span class="name">${esc(s.name)}</span><div class="muted mono">${esc(s.id)}</div>${personaId(s.id, links)}</th>
    ${cell('Status', `${badge(s.status, kindOf(s.status), `server-status-${slug(s.name)}`)}${s.locked ? ' <span class="muted">locked</span>' : ''}`)}
    ${cell('Type, zone', `${esc(s.server_type)}<br><span class="muted">${esc(s.zone)}</span>`)}
    ${cell('Public, private IP', ips)}${cell('Node', nodeCell)}${cell('Actions', `<div class="button-grid">${serverButtons(s)}</div>`)}</tr>`;
}

/**
 * @param {Cloud} cloud
 * @param {Links} links
 */
function servers(cloud, links) {
  if (cloud.servers.length === 0)
    return section('Servers', 'cloud-servers', empty('No servers. Add a worker from the Actions view.', 'cloud-servers-empty'), 0);
  const head =
    '<tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Type, zone</th><th scope="col">Public, private IP</th><th scope="col">Node</th><th scope="col">Actions</th></tr>';
  return section(
    'Servers',
    'cloud-servers',
    `<div class="scroll"><table class="cards-on-phone"><thead>${head}</thead><tbody>${cloud.servers.map((s) => serverRow(s, links)).join('')}</tbody></table></div>`,
    cloud.servers.length,
  );
}

/** @param {import('./types').LoadBalancerService} svc */
function listener(svc) {
  const hc = svc.health_check;
  const check = `${hc.protocol}${hc.protocol === 'http' ? ` ${hc.path}` : ''} :${hc.port ?? svc.destination_port} every ${hc.interval_seconds}s`;
  return `<li class="mono">${esc(svc.protocol)} :${esc(svc.listen_port)} → node port ${esc(svc.destination_port)}${svc.proxy_protocol !== 'none' ? ` (PROXY ${esc(svc.proxy_protocol)})` : ''} <span class="muted">check ${esc(check)}</span></li>`;
}

/**
 * @param {import('./types').LoadBalancerTarget} t
 * @param {Cloud} cloud
 */
function targetName(t, cloud) {
  if (t.kind === 'server') return `server ${cloud.servers.find((s) => s.id === t.server_id)?.name ?? t.server_id}`;
  if (t.kind === 'server_group') return `server group ${cloud.serverGroups.find((g) => g.id === t.server_group_id)?.name ?? t.server_group_id}`;
  return t.kind === 'ip' ? `ip ${t.ip}` : `label ${t.label_selector}`;
}

/**
 * @param {import('./types').ResolvedTarget} t
 * @param {import('./types').CloudLoadBalancer} lb
 * @param {Cloud} cloud
 */
function resolvedTarget(t, lb, cloud) {
  const c = lb.counters.find((x) => x.target_id === t.id);
  const name = cloud.servers.find((s) => s.id === t.server_id)?.name ?? t.id;
  const health = t.health.map((h) => badge(`:${h.listen_port} ${h.status}`, kindOf(h.status))).join(' ') || '<span class="muted">no checks yet</span>';
  const traffic = c ? `${c.connections} conn, ${c.bytes_in} B in / ${c.bytes_out} B out` : '0 conn';
  return `<li data-testid="lb-${esc(lb.id)}-target-${esc(slug(name))}"><span class="mono">${esc(name)}</span> ${esc(t.ip ?? '')} ${health} <span class="muted">${esc(traffic)}</span></li>`;
}

/**
 * @param {import('./types').CloudLoadBalancer} lb
 * @param {Cloud} cloud
 * @param {Links} links
 */
function loadBalancer(lb, cloud, links) {
  const svc = links.cloudToService[lb.id];
  const owner = svc ? jump(`cluster-service-${slug(svc)}`, `Service ${svc}`, `lb-${lb.id}-service-link`) : '<span class="muted">no Service</span>';
  const ranges = lb.source_ranges.length ? lb.source_ranges.join(', ') : 'any source';
  return `<article class="card" id="cloud-lb-${esc(lb.id)}" data-testid="lb-${esc(lb.id)}" data-status="${esc(lb.status)}">
    <h4>${esc(lb.name)} ${badge(lb.status, kindOf(lb.status), `lb-status-${lb.id}`)}</h4>
    <dl><dt>Id</dt><dd class="mono">${esc(lb.id)}${personaId(lb.id, links)}</dd><dt>VIP</dt><dd class="mono" data-testid="lb-${esc(lb.id)}-vip">${esc(lb.public_ipv4)}</dd><dt>Owner</dt><dd>${owner}</dd>
    <dt>Algorithm</dt><dd>${esc(lb.algorithm)}</dd><dt>Sources</dt><dd class="mono">${esc(ranges)}</dd>
    <dt>Targets</dt><dd>${esc(lb.targets.map((t) => targetName(t, cloud)).join(', ') || 'none')}</dd></dl>
    <p class="label">Listeners</p><ul>${lb.services.map(listener).join('') || '<li class="muted">none</li>'}</ul>
    <p class="label">Resolved targets, health and traffic</p><ul>${lb.resolved_targets.map((t) => resolvedTarget(t, lb, cloud)).join('') || '<li class="muted">none</li>'}</ul></article>`;
}

/**
 * @param {Cloud} cloud
 * @param {Links} links
 */
function loadBalancers(cloud, links) {
  const body = cloud.loadBalancers.length
    ? `<div class="cards">${cloud.loadBalancers.map((lb) => loadBalancer(lb, cloud, links)).join('')}</div>`
    : empty('No load balancers. Create a LoadBalancer Service (Actions view or the load balancer tour) and the CCM will make one.', 'cloud-lbs-empty');
  return section('Load balancers', 'cloud-lbs', body, cloud.loadBalancers.length);
}

/**
 * @param {string} id
 * @param {Links} links
 * @param {string} testid
 */
function serviceCell(id, links, testid) {
  const svc = links.cloudToService[id];
  return svc ? jump(`cluster-service-${slug(svc)}`, svc, testid) : '<span class="muted">—</span>';
}

/**
 * @param {Cloud} cloud
 * @param {Links} links
 */
function groups(cloud, links) {
  /** @param {string} id */
  const name = (id) => cloud.servers.find((s) => s.id === id)?.name ?? id;
  const rows = cloud.serverGroups.map(
    (
      g,
    ) => `<tr id="cloud-group-${esc(g.id)}" data-testid="group-${esc(g.id)}"><th scope="row">${esc(g.name)}<div class="muted mono">${esc(g.id)}</div>${personaId(g.id, links)}</th>
    <td>${esc(g.servers.map(name).join(', ') || 'none')}</td><td class="mono">${esc(g.firewall_policy_id ?? '—')}</td><td>${serviceCell(g.id, links, `group-${g.id}-service-link`)}</td></tr>`,
  );
  const body = rows.length
    ? `<div class="scroll"><table><thead><tr><th scope="col">Group</th><th scope="col">Members</th><th scope="col">Firewall policy</th><th scope="col">Service</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`
    : empty('No server groups (the lb strategy creates one per LoadBalancer Service).', 'cloud-groups-empty');
  return section('Server groups', 'cloud-groups', body, rows.length);
}

/** @param {import('./types').FirewallRule} r */
function rule(r) {
  return `${r.direction} ${r.protocol} ${r.ports ?? 'all'} from ${r.source_cidrs.join(', ') || 'anywhere'}`;
}

/**
 * @param {Cloud} cloud
 * @param {Links} links
 */
function policies(cloud, links) {
  const rows = cloud.firewallPolicies.map(
    (
      p,
    ) => `<tr id="cloud-policy-${esc(p.id)}" data-testid="policy-${esc(p.id)}"><th scope="row">${esc(p.name)}<div class="muted mono">${esc(p.id)}</div>${personaId(p.id, links)}</th>
    <td><ul class="plain">${p.rules.map((r) => `<li class="mono">${esc(rule(r))}</li>`).join('') || '<li class="muted">no rules</li>'}</ul></td><td class="mono">${esc(p.server_group_id ?? '—')}</td><td>${serviceCell(p.id, links, `policy-${p.id}-service-link`)}</td></tr>`,
  );
  const body = rows.length
    ? `<div class="scroll"><table><thead><tr><th scope="col">Policy</th><th scope="col">Rules</th><th scope="col">Applied to</th><th scope="col">Service</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`
    : empty('No firewall policies.', 'cloud-policies-empty');
  return section('Firewall policies', 'cloud-policies', body, rows.length);
}

/**
 * @param {Cloud} cloud
 * @param {Links} links
 */
function ipBlocks(cloud, links) {
  const rows = cloud.ipBlocks.map(
    (
      b,
    ) => `<tr id="cloud-ipblock-${esc(b.id)}" data-testid="ipblock-${esc(b.id)}"><th scope="row" class="mono">${esc(b.cidr)}<div class="muted">${esc(b.id)}</div>${personaId(b.id, links)}</th>
    <td>${badge(b.status, kindOf(b.status))}</td><td class="mono">${esc(b.assigned_to ? `${b.assigned_to.kind} ${b.assigned_to.id}` : '—')}</td>
    <td class="mono">${esc(
      Object.entries(b.tags)
        .map(([k, v]) => `${k}=${v}`)
        .join(' '),
    )}</td><td>${serviceCell(b.id, links, `ipblock-${b.id}-service-link`)}</td></tr>`,
  );
  const body = rows.length
    ? `<div class="scroll"><table><thead><tr><th scope="col">Block</th><th scope="col">Status</th><th scope="col">Assigned to</th><th scope="col">Tags</th><th scope="col">Service</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`
    : empty('No IP blocks (the ip-block strategy allocates one per LoadBalancer Service).', 'cloud-ipblocks-empty');
  return section('IP blocks', 'cloud-ipblocks', body, rows.length);
}

/**
 * @param {import('./types').Network} n
 * @param {import('./types').Route} r
 * @param {Links} links
 */
function route(n, r, links) {
  const node = links.routeToNode[`${n.id}/${r.id}`];
  const nodeCell = node ? jump(`cluster-node-${slug(node)}`, `Node ${node}`, `route-${slug(r.destination)}-node-link`) : '<span class="muted">no Node</span>';
  return `<tr id="cloud-route-${esc(slug(r.destination))}" data-testid="route-${esc(slug(r.destination))}"><td class="mono">${esc(r.destination)}</td><td class="mono">${esc(r.gateway)}</td><td>${nodeCell}</td></tr>`;
}

/**
 * @param {Cloud} cloud
 * @param {Links} links
 */
function networks(cloud, links) {
  const body = cloud.networks
    .map(
      (
        n,
      ) => `<article class="card" data-testid="network-${esc(n.name)}"><h4>${esc(n.name)} <span class="mono muted">${esc(n.ip_range)}</span></h4>${personaId(n.id, links)}
    <p class="muted">${esc(n.servers.length)} servers attached; subnets ${esc(n.subnets.map((s) => `${s.zone} ${s.ip_range}`).join(', ') || 'none')}</p>
    ${n.routes.length ? `<div class="scroll"><table><thead><tr><th scope="col">Route destination (podCIDR)</th><th scope="col">Gateway</th><th scope="col">Node</th></tr></thead><tbody>${n.routes.map((r) => route(n, r, links)).join('')}</tbody></table></div>` : empty('No routes yet: node-route-controller creates one per Node podCIDR.', `network-${n.name}-routes-empty`)}</article>`,
    )
    .join('');
  return section('Networks and routes', 'cloud-networks', body || empty('No networks.', 'cloud-networks-empty'), cloud.networks.length);
}

/** @param {Cloud} cloud */
function activity(cloud) {
  const actions = cloud.actions.map(
    (a) =>
      `<li data-testid="cloud-action-${esc(a.id)}">${esc(a.command)} ${badge(`${a.progress}%`, 'warn')} <span class="muted">${esc(a.resources.map((r) => r.id).join(', '))} since ${esc(timeOf(a.started))}</span></li>`,
  );
  const faults = cloud.faults.map(
    (f) =>
      `<li data-testid="cloud-fault-${esc(f.id)}">${badge(f.kind, 'bad')} <span class="mono">${esc(f.match?.path ?? 'every call')}</span> <span class="muted">fired ${esc(f.fired)}×</span></li>`,
  );
  return (
    section(
      'Actions in progress',
      'cloud-actions',
      actions.length ? `<ul>${actions.join('')}</ul>` : empty('No cloud action is running.', 'cloud-actions-empty'),
      actions.length,
    ) +
    section(
      'Active faults',
      'cloud-faults',
      faults.length ? `<ul>${faults.join('')}</ul>` : empty('No fault rules: the cloud answers normally.', 'cloud-faults-empty'),
      faults.length,
    )
  );
}

/** @param {import('./types').ConsoleState} state */
export function cloudHtml(state) {
  const { cloud, links } = state;
  const error = cloud.ok
    ? ''
    : `<div class="error" role="alert" data-testid="cloud-error"><strong>simcloud is unreachable.</strong> ${esc(cloud.error)}${cloud.updatedAt ? ` Showing what it held at ${esc(timeOf(cloud.updatedAt))}.` : ''}</div>`;
  if (!cloud.ok && !cloud.updatedAt)
    return `${error}<p class="empty" data-testid="cloud-unknown">Nothing to show until simcloud answers; this view fills in by itself when it does.</p>`;
  return (
    error +
    servers(cloud, links) +
    loadBalancers(cloud, links) +
    groups(cloud, links) +
    policies(cloud, links) +
    ipBlocks(cloud, links) +
    networks(cloud, links) +
    activity(cloud)
  );
}
