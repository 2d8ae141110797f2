// @ts-check
// The tour panel: lists the tours, runs the active one step by step, ticks expectations off live and
// highlights the matching rows and cards in the Cloud and Cluster views (pending: amber, done: green).
import { closest, esc, find, render } from './dom.js';
import { entryList, postAction, store } from './store.js';
import { TOURS } from './tours.js';

/** @typedef {import('./types').Tour} Tour */
/** @typedef {Omit<import('./types').Expectation, 'done'> & { done: boolean, text: string }} Check */

/** @type {{ tour: Tour | null, step: number, ctx: import('./types').TourContext, running: boolean, message: string, scrolledTo: string }} */
const active = { tour: null, step: 0, ctx: { stepStart: 0 }, running: false, message: '', scrolledTo: '' };

/** Shows a tab (set by app.js): a step switches to the view it talks about. */
let showView = /** @type {(id: string) => void} */ (() => undefined);
/** @param {(id: string) => void} fn */
export function onTourView(fn) {
  showView = fn;
}

/** Shows the active step's view; its first highlighted element is scrolled to as soon as it exists. */
function enterStep() {
  const step = active.tour?.steps[active.step];
  active.scrolledTo = '';
  if (step) showView(step.view);
}

export function toursHtml() {
  return `<p class="muted">Each tour runs real actions on this sandbox and checks, live, what the CCM does on both sides.</p><div class="cards">${TOURS.map(
    (t) => `
    <article class="card" data-testid="tour-card-${esc(t.id)}"><h4>${esc(t.title)}</h4><p>${esc(t.summary)}</p>
    <button type="button" data-tour-start="${esc(t.id)}" data-testid="tour-start-${esc(t.id)}">Start the ${esc(t.title.toLowerCase())} tour</button></article>`,
  ).join('')}</div>`;
}

function lastId() {
  const list = entryList();
  return list.at(-1)?.id ?? 0;
}

/** @param {string | undefined} id */
export function startTour(id) {
  const tour = TOURS.find((t) => t.id === id);
  if (!tour || !store.state) return;
  Object.assign(active, { tour, step: 0, ctx: { stepStart: lastId() }, running: false, message: '' });
  tour.setup?.(active.ctx, store.state);
  enterStep();
  refreshTour();
  find(document, '[data-testid="tour-panel"]', HTMLElement).focus();
}

/**
 * Expectations read a state that may not hold their objects yet: a throw counts as "not yet".
 * @template T
 * @param {() => T} fn
 * @param {T} fallback
 * @returns {T}
 */
function safely(fn, fallback) {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

/**
 * @param {import('./types').TourStep} step
 * @param {import('./types').ConsoleState} state
 * @returns {Check[]}
 */
function checks(step, state) {
  return step.expect.map((x) => {
    return { ...x, done: safely(() => Boolean(x.done(active.ctx, state, entryList())), false), text: x.label(active.ctx) };
  });
}

/**
 * @param {Check[]} list
 * @param {import('./types').ConsoleState | null} state
 */
function highlight(list, state) {
  for (const el of document.querySelectorAll('.tour-pending, .tour-done')) el.classList.remove('tour-pending', 'tour-done');
  for (const x of list) {
    const ids = state ? safely(() => x.highlight(active.ctx, state), /** @type {string[]} */ ([])) : [];
    for (const id of ids) document.getElementById(id)?.classList.add(x.done ? 'tour-done' : 'tour-pending');
  }
  scrollToChange();
}

/** Scrolls to the change to look at, in the views shown: the first element still waiting, else the last one met; once each. */
function scrollToChange() {
  /** @type {(sel: string) => Element[]} */
  const shown = (sel) => [...document.querySelectorAll(sel)].filter((el) => el.getClientRects().length > 0);
  const change = shown('.tour-pending')[0] ?? shown('.tour-done').at(-1);
  if (!change || change.id === active.scrolledTo) return;
  active.scrolledTo = change.id;
  change.scrollIntoView({ block: 'center', behavior: 'smooth' });
}

/** @param {import('./types').TourStep} step */
function codeHtml(step) {
  if (step.code.length === 0) return '';
  const items = step.code.map((c) =>
    c.href ? `<li><a href="${esc(c.href)}" target="_blank" rel="noopener noreferrer">${esc(c.label)}</a></li>` : `<li class="mono">${esc(c.label)}</li>`,
  );
  return `<div class="tour-code" data-testid="tour-code"><span class="muted">The code that does it:</span><ul class="plain">${items.join('')}</ul></div>`;
}

/**
 * @param {Tour} tour
 * @param {Check[]} list
 */
function panelHtml(tour, list) {
  const i = active.step;
  const step = tour.steps[i];
  if (!step) return '';
  const allDone = list.every((x) => x.done);
  const action = step.action
    ? `<button type="button" data-tour-action data-testid="tour-action"${active.running || active.ctx[`ran${i}`] ? ' disabled' : ''}>${esc(step.action.label)}</button>`
    : '';
  const items = list
    .map(
      (x) =>
        `<li data-testid="tour-expect-${esc(x.id)}" data-done="${x.done}" class="${x.done ? 'done' : 'pending'}"><span aria-hidden="true">${x.done ? '✔' : '…'}</span> ${esc(x.text)}<span class="sr-only">${x.done ? ' (done)' : ' (waiting)'}</span></li>`,
    )
    .join('');
  const next =
    i + 1 < tour.steps.length
      ? `<button type="button" data-tour-next data-testid="tour-next"${allDone ? '' : ' class="secondary"'}>Next step</button>`
      : `<button type="button" data-tour-end data-testid="tour-finish">${allDone ? 'Finish' : 'End tour'}</button>`;
  return `<div class="tour-text"><h2 id="tour-title">${esc(tour.title)} <span class="muted">step ${i + 1} of ${tour.steps.length}</span></h2>
    <h3 data-testid="tour-step-title">${esc(step.title)}</h3><p>${esc(step.text)}</p>${codeHtml(step)}${action}
    <p class="muted" data-testid="tour-message">${esc(active.message)}</p></div>
    <div class="tour-checks"><ul class="expect" aria-live="polite">${items}</ul>
    <p data-testid="tour-status" data-complete="${allDone}">${allDone ? 'All done: every change happened on both sides.' : 'Waiting for the changes above…'}</p>
    <div class="buttons">${i > 0 ? '<button type="button" class="secondary" data-tour-back data-testid="tour-back">Back</button>' : ''}${next}
    <button type="button" class="secondary" data-tour-end data-testid="tour-close">Close</button></div></div>`;
}

export function refreshTour() {
  const panel = find(document, '[data-testid="tour-panel"]', HTMLElement);
  const step = active.tour?.steps[active.step];
  if (!active.tour || !step || !store.state) {
    panel.hidden = true;
    highlight([], null);
    return;
  }
  panel.hidden = false;
  const list = checks(step, store.state);
  render(panel.querySelector('.tour-body'), panelHtml(active.tour, list));
  highlight(list, store.state);
}

async function runStepAction() {
  const action = active.tour?.steps[active.step]?.action;
  if (!action || !store.state) return;
  active.running = true;
  refreshTour();
  const r = await action.run(active.ctx, store.state);
  active.running = false;
  active.ctx[`ran${active.step}`] = r.ok;
  active.message = r.ok ? r.message : `Failed: ${r.message}`;
  refreshTour();
}

/** @param {number} delta */
function move(delta) {
  if (!active.tour) return;
  if (store.state) active.tour.steps[active.step]?.after?.(active.ctx, store.state);
  active.step = Math.max(0, Math.min(active.tour.steps.length - 1, active.step + delta));
  active.ctx.stepStart = lastId();
  active.message = '';
  enterStep();
  refreshTour();
}

/** Ends the tour: the step's own clean-up, and a held CCM is never left held. */
function endTour() {
  const tour = active.tour;
  if (tour && store.state) tour.steps[active.step]?.after?.(active.ctx, store.state);
  if (store.state?.sandbox.ccmHeld) void postAction('ccm', { hold: false });
  active.tour = null;
  refreshTour();
}

/**
 * Handles a click on a tour control; true when it was one.
 * @param {Element} target
 */
export function tourClick(target) {
  const start = closest(target, '[data-tour-start]');
  if (start) return (startTour(start.dataset.tourStart), true);
  if (!active.tour) return false;
  if (target.closest('[data-tour-action]')) return (void runStepAction(), true);
  if (target.closest('[data-tour-next]')) return (move(1), true);
  if (target.closest('[data-tour-back]')) return (move(-1), true);
  if (target.closest('[data-tour-end]')) return (endTour(), true);
  return false;
}
