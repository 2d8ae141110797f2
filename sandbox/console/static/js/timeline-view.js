// @ts-check
// The Timeline view: every step the console saw (the CCM's cloud calls, cloud resource changes, Kubernetes
// events and Node/Service changes), grouped by the object it concerns, newest group first; each step names
// the controller, the upstream cloud-provider method and what changed, with a one-sentence explanation.
import { esc, jump, slug, timeOf } from './dom.js';

/** @typedef {import('./types').TimelineEntry} TimelineEntry */
/** @typedef {{ name: string, steps: TimelineEntry[], last: number }} Group */

/** @type {Record<string, string>} */
const SOURCE_TEXT = { 'cloud-call': 'cloud call', 'cloud-change': 'cloud change', 'kube-event': 'k8s event', 'kube-change': 'k8s change' };

/** What runs in the sandbox's CCM slot (`sandbox:up --ccm`). */
/** @type {Record<string, string>} */
const CCM_TEXT = {
  builtin: 'our TypeScript CCM',
  upstream: "the upstream Go CCM: k8s.io/cloud-provider's own controllers over the simcloud provider in go/",
  command: 'your CCM, started from --ccm-command',
  none: 'no CCM: the slot is empty until you run yours (sandbox:up printed how)',
};

/** @param {string} kind */
export const ccmText = (kind) => CCM_TEXT[kind] ?? kind;

export const timelineFilters = { text: '', flat: false, sources: new Set(Object.keys(SOURCE_TEXT)) };

/** @param {string} group */
function groupTitle(group) {
  const [kind, ...rest] = group.split('/');
  const name = rest.join('/');
  if (kind === 'Node') return { text: `Node ${name}`, target: `cluster-node-${slug(name)}` };
  if (kind === 'Service') return { text: `Service ${name}`, target: `cluster-service-${slug(name)}` };
  if (kind === 'Caller') return { text: `Other client: ${name}`, target: null };
  return { text: name ? `${kind} ${name}` : kind, target: null };
}

/** @param {TimelineEntry} e */
function step(e) {
  const count = e.count > 1 ? ` <span class="count" title="repeated, last at ${esc(timeOf(e.lastTime))}">×${esc(e.count)}</span>` : '';
  const guessed = e.methodSource === 'inferred';
  const method = e.method
    ? `<span class="method${guessed ? ' guessed' : ''}" data-testid="timeline-method" data-method-source="${esc(e.methodSource ?? '')}"${guessed ? ' title="guessed from the order of the calls: this CCM sent no X-Simcloud-Method header"' : ''}>${esc(e.method)}${guessed ? ' (guessed)' : ''}</span>`
    : '';
  const ctrl = e.controller ? `<span class="ctrl">${esc(e.controller)}</span>` : '';
  return `<li class="step sev-${esc(e.severity)}" data-testid="timeline-step" data-source="${esc(e.source)}" data-method="${esc(e.method ?? '')}" data-group="${esc(e.group)}">
    <div class="step-head"><time datetime="${esc(e.time)}">${esc(timeOf(e.time))}</time><span class="src src-${esc(e.source)}">${esc(SOURCE_TEXT[e.source] ?? e.source)}</span>${ctrl}${method}<strong data-testid="timeline-title">${esc(e.title)}</strong>${count}</div>
    <p class="why" data-testid="timeline-explanation">${esc(e.explanation)}</p></li>`;
}

/** @param {TimelineEntry} e */
function matches(e) {
  if (!timelineFilters.sources.has(e.source)) return false;
  const q = timelineFilters.text.trim().toLowerCase();
  if (!q) return true;
  return [e.group, e.title, e.explanation, e.method ?? '', e.controller ?? ''].some((s) => s.toLowerCase().includes(q));
}

/** @param {TimelineEntry[]} entries */
function groupsOf(entries) {
  /** @type {Map<string, Group>} */
  const groups = new Map();
  for (const e of entries) {
    const g = groups.get(e.group) ?? { name: e.group, steps: [], last: 0 };
    g.steps.push(e);
    g.last = Math.max(g.last, e.id);
    groups.set(e.group, g);
  }
  /** @type {(a: TimelineEntry, b: TimelineEntry) => number} */
  const byTime = (a, b) => a.time.localeCompare(b.time) || a.id - b.id;
  const list = [...groups.values()].sort((a, b) => b.last - a.last).slice(0, 60);
  for (const g of list) g.steps.sort(byTime);
  return list;
}

/** @param {Group} g */
function groupHtml(g) {
  const t = groupTitle(g.name);
  const title = t.target ? jump(t.target, t.text) : esc(t.text);
  const steps = g.steps.slice(-50);
  const older = g.steps.length - steps.length;
  return `<section class="panel tl-group" data-testid="timeline-group-${esc(slug(g.name))}"><h3>${title} <span class="count">${esc(g.steps.length)}</span></h3>
    ${older > 0 ? `<p class="muted">${esc(older)} older steps not shown</p>` : ''}<ol class="steps">${steps.map(step).join('')}</ol></section>`;
}

/** @param {string | undefined} kind */
function ccmNote(kind) {
  if (!kind) return '';
  return `<p class="muted ccm-note" data-testid="timeline-ccm" data-ccm="${esc(kind)}">CCM: ${esc(ccmText(kind))}. Each cloud call is explained from the headers the CCM sends: the controller and object from X-Simcloud-Caller, the cloud-provider method from X-Simcloud-Method. Ours and the upstream CCM send both; for a CCM that sends no method, the method is guessed from the order of its calls and marked (guessed).</p>`;
}

/**
 * The Timeline view: which CCM runs, then the steps.
 * @param {TimelineEntry[]} entries
 * @param {string | undefined} ccm
 */
export function timelineHtml(entries, ccm) {
  return ccmNote(ccm) + timelineBody(entries);
}

/** @param {TimelineEntry[]} entries */
function timelineBody(entries) {
  const shown = entries.filter(matches);
  if (entries.length === 0)
    return '<p class="empty" data-testid="timeline-empty">Nothing yet. Try an action (power off a worker, create a LoadBalancer Service) and watch the CCM react here.</p>';
  if (shown.length === 0) return '<p class="empty" data-testid="timeline-empty">No step matches the filter.</p>';
  if (timelineFilters.flat) return `<ol class="steps flat">${shown.slice(-300).reverse().map(step).join('')}</ol>`;
  return groupsOf(shown).map(groupHtml).join('');
}

export function timelineControlsHtml() {
  const boxes = Object.entries(SOURCE_TEXT)
    .map(
      ([k, label]) =>
        `<label class="check"><input type="checkbox" data-tl-source="${esc(k)}" data-testid="timeline-source-${esc(k)}"${timelineFilters.sources.has(k) ? ' checked' : ''}> ${esc(label)}</label>`,
    )
    .join('');
  return `<div class="controls" role="group" aria-label="Timeline filters">
    <label for="tl-filter">Filter</label><input id="tl-filter" type="search" data-testid="timeline-filter" placeholder="node, Service, method…" value="${esc(timelineFilters.text)}">
    ${boxes}<label class="check"><input type="checkbox" data-tl-flat data-testid="timeline-flat"${timelineFilters.flat ? ' checked' : ''}> flat (newest first)</label></div>`;
}
