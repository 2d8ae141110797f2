// @ts-check
// The console UI: tabs (Cloud + Cluster side by side, Cloud, Cluster, Timeline, Actions, Tours), live from
// one Server-Sent Events stream, no reload and no build step. Controls are real buttons and form fields;
// clicks are delegated from the document so re-rendered rows keep working.
import { actionsSkeleton, faultBody, runAction, serviceBody, updateActions } from './actions-view.js';
import { cloudHtml } from './cloud-view.js';
import { clusterHtml } from './cluster-view.js';
import { closest, esc, find, flash, render } from './dom.js';
import { connect, entryList, loadAnnotations, onChange, store } from './store.js';
import { ccmText, timelineControlsHtml, timelineFilters, timelineHtml } from './timeline-view.js';
import { onTourView, refreshTour, tourClick, toursHtml } from './tour-panel.js';

const TABS = [
  { id: 'both', label: 'Cloud + Cluster', panels: ['cloud', 'cluster'] },
  { id: 'cloud', label: 'Cloud', panels: ['cloud'] },
  { id: 'cluster', label: 'Cluster', panels: ['cluster'] },
  { id: 'timeline', label: 'Timeline', panels: ['timeline'] },
  { id: 'actions', label: 'Actions', panels: ['actions'] },
  { id: 'tours', label: 'Tours', panels: ['tours'] },
];
let current = 'both';

/** @typedef {import('./types').Store} Store */

/** @param {string} sel */
const $ = (sel) => find(document, sel, HTMLElement);

/** @param {string} id */
function showTab(id, focus = false) {
  const tab = TABS.find((t) => t.id === id) ?? TABS[0];
  current = tab.id;
  for (const t of TABS) {
    const button = $(`#tab-${t.id}`);
    button.setAttribute('aria-selected', String(t.id === tab.id));
    button.tabIndex = t.id === tab.id ? 0 : -1;
  }
  for (const p of ['cloud', 'cluster', 'timeline', 'actions', 'tours']) $(`#view-${p}`).hidden = !tab.panels.includes(p);
  $('main').dataset.layout = tab.id;
  if (focus) $(`#tab-${tab.id}`).focus();
  if (location.hash !== `#${tab.id}`) history.replaceState(null, '', `#${tab.id}`);
}

/**
 * Before jumping to an element, shows a tab that holds it (keeping the side-by-side tab when it does).
 * @param {Element} el
 */
function showTabOf(el) {
  const panel = el.closest('[role="tabpanel"]')?.id.replace('view-', '');
  if (!panel || TABS.find((t) => t.id === current)?.panels.includes(panel)) return;
  showTab(panel);
}

/** @param {Store} s */
function statusHtml(s) {
  const state = s.state;
  const cloud = !state ? 'connecting' : state.cloud.ok ? 'ok' : 'unreachable';
  const cluster = !state ? 'connecting' : state.cluster.ok ? 'ok' : 'unreachable';
  const name = state ? `${state.sandbox.name} · ${state.sandbox.runtime} · lb strategy ${state.sandbox.lbStrategy}` : '';
  /** @type {(label: string, value: string, testid: string) => string} */
  const dot = (label, value, testid) =>
    `<span class="pill pill-${esc(value)}" data-testid="${testid}" data-state="${esc(value)}">${esc(label)}: ${esc(value)}</span>`;
  const held = state?.sandbox.ccmHeld ? ' (held)' : '';
  const ccm = state
    ? `<span class="pill" data-testid="status-ccm" data-state="${esc(state.sandbox.ccm)}" data-held="${Boolean(held)}" title="${esc(ccmText(state.sandbox.ccm))}">CCM: ${esc(state.sandbox.ccm)}${held}</span>`
    : '';
  return `<span class="muted">${esc(name)}</span>${ccm}${dot('stream', s.connection, 'status-stream')}${dot('simcloud', cloud, 'status-cloud')}${dot('cluster', cluster, 'status-cluster')}`;
}

/** @param {Store} s */
function renderAll(s) {
  render($('#status'), statusHtml(s));
  if (s.state) {
    render($('#view-cloud .body'), cloudHtml(s.state));
    render($('#view-cluster .body'), clusterHtml(s.state));
  }
  render($('#view-timeline .body'), timelineHtml(entryList(), s.state?.sandbox.ccm));
  updateActions($('#view-actions'), s.state);
  refreshTour();
}

/** @param {HTMLElement} b */
function serverOp(b) {
  const { serverOp: op, serverId, serverName } = b.dataset;
  void runAction('server', { serverId, action: op }, `${op} ${serverName}`);
}

/** @param {HTMLElement} b */
function actButton(b) {
  const act = b.dataset.act;
  if (act === 'worker') return void runAction('worker', {}, 'Add a worker');
  if (act === 'faults-clear') return void runAction('faults/clear', {}, 'Clear faults');
  if (act === 'reset') return void runAction('reset', {}, 'Reset');
  const [namespace, name] = (find(document, '#act-service', HTMLSelectElement).value || '/').split('/');
  void runAction('service/delete', { namespace, name }, `Delete Service ${name}`);
}

/** @param {MouseEvent} ev */
function onClick(ev) {
  const t = ev.target;
  if (!(t instanceof Element)) return;
  const jumpLink = closest(t, '[data-jump]');
  if (jumpLink) {
    ev.preventDefault();
    flash(jumpLink.dataset.jump ?? '', showTabOf);
    return;
  }
  if (tourClick(t)) return;
  const tab = t.closest('[role="tab"]');
  if (tab) return showTab(tab.id.replace('tab-', ''));
  const op = closest(t, '[data-server-op]');
  if (op) return serverOp(op);
  const act = closest(t, '[data-act]');
  if (act) return actButton(act);
  onActionClick(t);
}

/** @param {Element} t */
function onActionClick(t) {
  const actServer = closest(t, '[data-act-server]');
  if (actServer) {
    const select = find(document, '#act-server', HTMLSelectElement);
    return void runAction(
      'server',
      { serverId: select.value, action: actServer.dataset.actServer },
      `${actServer.dataset.actServer} ${select.selectedOptions[0]?.dataset.name ?? ''}`,
    );
  }
  const del = closest(t, '[data-service-delete]');
  if (del)
    void runAction('service/delete', { namespace: del.dataset.namespace, name: del.dataset.serviceDelete }, `Delete Service ${del.dataset.serviceDelete}`);
}

/** @param {KeyboardEvent} ev */
function onTabKey(ev) {
  const target = ev.target;
  if (!(target instanceof Element) || !target.matches('[role="tab"]')) return;
  // From the focused tab, as the WAI-ARIA tabs pattern asks: it can differ from the selected one.
  const i = TABS.findIndex((t) => `tab-${t.id}` === target.id);
  /** @type {Record<string, number>} */
  const moves = { ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: TABS.length - 1 };
  const next = moves[ev.key];
  if (next === undefined) return;
  ev.preventDefault();
  showTab(TABS[(next + TABS.length) % TABS.length]?.id ?? 'both', true);
}

/** @param {SubmitEvent} ev */
function onSubmit(ev) {
  ev.preventDefault();
  const form = ev.target;
  if (!(form instanceof HTMLFormElement)) return;
  if (form.id === 'service-form') void runAction('service', serviceBody(form), 'Create Service');
  if (form.id === 'fault-form') void runAction('fault', faultBody(form), 'Add fault');
}

/**
 * A timeline filter changed; true when `t` was one of its controls.
 * @param {HTMLInputElement | HTMLSelectElement} t
 */
function timelineFilterInput(t) {
  if (t.id === 'tl-filter') timelineFilters.text = t.value;
  else if (!(t instanceof HTMLInputElement)) return false;
  else if (t.dataset.tlSource !== undefined) timelineFilters.sources[t.checked ? 'add' : 'delete'](t.dataset.tlSource);
  else if (t.dataset.tlFlat !== undefined) timelineFilters.flat = t.checked;
  else return false;
  return true;
}

/** @param {Event} ev */
function onInput(ev) {
  const t = ev.target;
  if (!(t instanceof HTMLInputElement || t instanceof HTMLSelectElement)) return;
  if (t.id === 'fault-kind') return updateActions($('#view-actions'), store.state);
  if (timelineFilterInput(t)) render($('#view-timeline .body'), timelineHtml(entryList(), store.state?.sandbox.ccm));
}

function boot() {
  $('#tabs').innerHTML = TABS.map(
    (t) => `<button type="button" role="tab" id="tab-${t.id}" aria-controls="view-${t.panels[0]}" data-testid="tab-${t.id}">${esc(t.label)}</button>`,
  ).join('');
  $('#view-actions .body').innerHTML = actionsSkeleton();
  $('#view-tours .body').innerHTML = toursHtml();
  $('#view-timeline .controls-slot').innerHTML = timelineControlsHtml();
  document.addEventListener('click', onClick);
  document.addEventListener('keydown', onTabKey);
  document.addEventListener('submit', onSubmit);
  document.addEventListener('input', onInput);
  document.addEventListener('change', onInput);
  showTab(location.hash.slice(1) || 'both');
  onTourView(showTab);
  onChange(renderAll);
  connect();
  void loadAnnotations();
  renderAll(store);
}

boot();
