// @ts-check
// The Actions view: forms for every console action (server power/reboot/delete, add a worker, create or
// delete an example LoadBalancer Service with annotations from the provider's registry, faults, reset).
// The forms are built once; only the server and Service pickers follow the state, keeping typed values.
import { esc, find, render, slug } from './dom.js';
import { postAction, store } from './store.js';

/** @param {import('./types').AnnotationChoice} a */
function annotationField(a) {
  const id = `ann-${slug(a.key)}`;
  const short = a.key.replace('loadbalancer.simcloud.dev/', '');
  const control = a.values
    ? `<select id="${id}" data-annotation="${esc(a.key)}" data-testid="annotation-${esc(slug(short))}"><option value="">default (${esc(a.defaultText || 'none')})</option>${a.values.map((v) => `<option>${esc(v)}</option>`).join('')}</select>`
    : `<input id="${id}" data-annotation="${esc(a.key)}" data-testid="annotation-${esc(slug(short))}" placeholder="${esc(a.defaultText || a.allowed)}">`;
  return `<div class="field"><label for="${id}" title="${esc(a.description)}">${esc(short)}</label>${control}<small>${esc(a.allowed)}</small></div>`;
}

export function actionsSkeleton() {
  return `
  <section class="panel" data-testid="actions-servers"><h3>Servers</h3>
    <div class="field"><label for="act-server">Server</label><select id="act-server" data-testid="action-server-select"></select></div>
    <div class="buttons">
      <button type="button" data-act-server="poweroff" data-testid="action-poweroff">Power off</button>
      <button type="button" data-act-server="poweron" data-testid="action-poweron">Power on</button>
      <button type="button" data-act-server="reboot" data-testid="action-reboot">Reboot</button>
      <button type="button" class="danger" data-act-server="delete" data-testid="action-delete-server">Delete server</button>
    </div>
    <p class="muted">Power off: the Node goes NotReady and gets the shutdown taint. Delete: the Node is deleted.</p>
    <button type="button" data-act="worker" data-testid="action-add-worker">Add a worker</button></section>
  <section class="panel" data-testid="actions-service"><h3>Example LoadBalancer Service</h3>
    <form id="service-form" data-testid="service-form">
      <div class="field"><label for="svc-name">Name</label><input id="svc-name" name="name" value="web" required data-testid="service-name"></div>
      <div class="field"><label for="svc-port">Port</label><input id="svc-port" name="port" type="number" min="1" max="65535" value="80" data-testid="service-port"></div>
      <div class="field"><label for="svc-ranges">Source ranges</label><input id="svc-ranges" name="ranges" placeholder="e.g. 127.0.0.1/32 (empty: any)" data-testid="service-ranges"></div>
      <fieldset><legend>Annotations</legend><div class="grid" id="annotation-fields" data-testid="annotation-fields"></div></fieldset>
      <button type="submit" data-testid="action-create-service">Create Service</button>
    </form>
    <div class="field"><label for="act-service">Existing Service</label><select id="act-service" data-testid="action-service-select"></select>
      <button type="button" class="danger" data-act="service-delete" data-testid="action-delete-service">Delete Service</button></div></section>
  <section class="panel" data-testid="actions-faults"><h3>Faults</h3>
    <form id="fault-form" data-testid="fault-form">
      <div class="field"><label for="fault-kind">Kind</label><select id="fault-kind" name="kind" data-testid="fault-kind">
        <option value="latency">latency</option><option value="error">error rate</option><option value="rate_limit">rate limit</option></select></div>
      <div class="field"><label for="fault-scope">Calls</label><select id="fault-scope" name="scope" data-testid="fault-scope">
        <option value="all">every /v1 call</option><option value="servers">servers</option><option value="loadBalancers">load balancers</option><option value="networks">networks and routes</option></select></div>
      <div class="field" data-fault="latency"><label for="fault-latency">Latency (ms)</label><input id="fault-latency" name="latencyMs" type="number" min="1" max="10000" value="500" data-testid="fault-latency"></div>
      <div class="field" data-fault="error"><label for="fault-prob">Error probability (0.01–1)</label><input id="fault-prob" name="probability" type="number" min="0.01" max="1" step="0.01" value="0.5" data-testid="fault-probability"></div>
      <div class="field" data-fault="rate_limit"><label for="fault-limit">Requests per window</label><input id="fault-limit" name="limit" type="number" min="1" value="5" data-testid="fault-limit"></div>
      <div class="field" data-fault="rate_limit"><label for="fault-window">Window (s)</label><input id="fault-window" name="windowSeconds" type="number" min="1" value="10" data-testid="fault-window"></div>
      <button type="submit" data-testid="action-add-fault">Add fault</button>
      <button type="button" data-act="faults-clear" data-testid="action-clear-faults">Clear all faults</button>
    </form></section>
  <section class="panel" data-testid="actions-reset"><h3>Reset</h3>
    <p class="muted">Clears every fault, deletes every LoadBalancer Service (the CCM cleans up the cloud) and powers every server on.</p>
    <button type="button" class="danger" data-act="reset" data-testid="action-reset">Reset the sandbox</button></section>`;
}

/**
 * @param {HTMLSelectElement} select
 * @param {string} html
 */
function keepValue(select, html) {
  const value = select.value;
  if (render(select, html) && [...select.options].some((o) => o.value === value)) select.value = value;
}

/**
 * @param {ParentNode} root
 * @param {import('./types').ConsoleState | null} state
 */
export function updateActions(root, state) {
  const servers = state?.cloud.servers ?? [];
  const serverOptions =
    servers.map((s) => `<option value="${esc(s.id)}" data-name="${esc(s.name)}">${esc(s.name)} (${esc(s.status)})</option>`).join('') ||
    '<option value="">no servers</option>';
  keepValue(find(root, '#act-server', HTMLSelectElement), serverOptions);
  const services = state?.cluster.services ?? [];
  const serviceOptions =
    services.map((s) => `<option value="${esc(`${s.namespace}/${s.name}`)}">${esc(`${s.namespace}/${s.name}`)}</option>`).join('') ||
    '<option value="">no LoadBalancer Service</option>';
  keepValue(find(root, '#act-service', HTMLSelectElement), serviceOptions);
  render(root.querySelector('#annotation-fields'), store.annotations.map(annotationField).join(''));
  const kind = find(root, '#fault-kind', HTMLSelectElement).value;
  for (const el of root.querySelectorAll('[data-fault]')) if (el instanceof HTMLElement) el.hidden = el.dataset.fault !== kind;
}

/** @param {HTMLFormElement} form */
export function serviceBody(form) {
  /** @type {Record<string, string>} */
  const annotations = {};
  for (const el of form.querySelectorAll('[data-annotation]')) {
    if ((el instanceof HTMLInputElement || el instanceof HTMLSelectElement) && el.dataset.annotation && el.value.trim() !== '')
      annotations[el.dataset.annotation] = el.value.trim();
  }
  const value = (/** @type {string} */ id) => find(form, id, HTMLInputElement).value;
  const ranges = value('#svc-ranges')
    .split(/[\s,]+/)
    .filter(Boolean);
  return { name: value('#svc-name').trim(), port: Number(value('#svc-port')), annotations, ...(ranges.length ? { sourceRanges: ranges } : {}) };
}

/** @param {HTMLFormElement} form */
export function faultBody(form) {
  const kind = find(form, '#fault-kind', HTMLSelectElement).value;
  const scope = find(form, '#fault-scope', HTMLSelectElement).value;
  const num = (/** @type {string} */ id) => Number(find(form, id, HTMLInputElement).value);
  if (kind === 'latency') return { kind, scope, latencyMs: num('#fault-latency') };
  if (kind === 'error') return { kind, scope, probability: num('#fault-prob') };
  return { kind, scope, limit: num('#fault-limit'), windowSeconds: num('#fault-window') };
}

/**
 * Runs an action and reports it in the shared status line (role=status, read by screen readers).
 * @param {string} path
 * @param {object} body
 * @param {string} label
 */
export async function runAction(path, body, label) {
  const out = find(document, '[data-testid="action-result"]', HTMLElement);
  out.className = 'result pending';
  out.textContent = `${label}…`;
  const r = await postAction(path, body);
  out.className = `result ${r.ok ? 'ok' : 'failed'}`;
  out.textContent = r.ok ? r.message : `${label} failed: ${r.message}`;
  out.dataset.field = r.field ?? '';
  return r;
}
