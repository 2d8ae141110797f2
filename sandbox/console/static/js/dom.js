// @ts-check
// Small DOM helpers: escaping, rendering a container only when its HTML changed (so focus and scroll
// survive the once-a-second state pushes), keeping keyboard focus across a re-render, and in-page links.

/** @type {Record<string, string>} */
const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Escapes text for HTML content and attribute values.
 * @param {unknown} value
 */
export function esc(value) {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESC[c]);
}

/**
 * A test id / element id fragment from any text.
 * @param {unknown} value
 */
export function slug(value) {
  return String(value ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** @type {WeakMap<Element, string>} */
const lastHtml = new WeakMap();

/** The element last jumped to: a live re-render replaces it, and the new one must keep the mark. */
/** @type {{ id: string, at: number } | null} */
let lastJump = null;

/**
 * Marks the jump target; a re-rendered copy resumes the animation where it was (negative delay).
 * @param {HTMLElement} el
 * @param {number} elapsedMs
 */
function markJumped(el, elapsedMs) {
  el.style.animationDelay = elapsedMs > 0 ? `-${Math.round(elapsedMs)}ms` : '';
  el.classList.add('flash');
}

/**
 * Replaces `el`'s content when `html` differs from what was rendered last; keeps focus on the same test id.
 * @param {Element | null} el
 * @param {string} html
 */
export function render(el, html) {
  if (!el || lastHtml.get(el) === html) return false;
  const active = document.activeElement;
  const focusId = active && el.contains(active) ? active.getAttribute('data-testid') : null;
  el.innerHTML = html;
  lastHtml.set(el, html);
  const again = focusId ? el.querySelector(`[data-testid="${CSS.escape(focusId)}"]`) : null;
  if (again instanceof HTMLElement) again.focus();
  const jumped = lastJump && el.querySelector(`#${CSS.escape(lastJump.id)}`);
  if (lastJump && jumped instanceof HTMLElement) markJumped(jumped, performance.now() - lastJump.at);
  return true;
}

/**
 * @param {unknown} text
 * @param {string} kind
 * @param {string} [testid]
 */
export function badge(text, kind, testid) {
  const t = testid ? ` data-testid="${esc(testid)}"` : '';
  return `<span class="badge badge-${esc(kind)}"${t}>${esc(text)}</span>`;
}

/**
 * A link to another object's element (by id); the click handler in app.js scrolls to it and flashes it.
 * @param {string} targetId
 * @param {string} text
 * @param {string} [testid]
 */
export function jump(targetId, text, testid) {
  const t = testid ? ` data-testid="${esc(testid)}"` : '';
  return `<a href="#${esc(targetId)}" class="jump" data-jump="${esc(targetId)}"${t}>${esc(text)}</a>`;
}

/**
 * @param {string} text
 * @param {string} testid
 */
export function empty(text, testid) {
  return `<p class="empty" data-testid="${esc(testid)}">${esc(text)}</p>`;
}

/**
 * @param {string} title
 * @param {string} testid
 * @param {string} body
 * @param {number} [count]
 */
export function section(title, testid, body, count) {
  const n = count === undefined ? '' : ` <span class="count">${esc(count)}</span>`;
  return `<section class="panel" data-testid="${esc(testid)}"><h3>${esc(title)}${n}</h3>${body}</section>`;
}

/** @param {string | null | undefined} iso */
export function timeOf(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleTimeString([], { hour12: false });
}

/**
 * Scrolls to an element and flashes it, switching to the tab that holds it first.
 * @param {string} id
 * @param {(el: HTMLElement) => void} showTabOf
 */
export function flash(id, showTabOf) {
  const el = document.getElementById(id);
  if (!el) return false;
  showTabOf(el);
  el.scrollIntoView({ block: 'center', behavior: 'smooth' });
  lastJump = { id, at: performance.now() };
  el.classList.remove('flash');
  void el.offsetWidth; // restarts the animation on an element already marked
  markJumped(el, 0);
  return true;
}

/**
 * A table cell that names its column, so narrow screens can show rows as stacked cards.
 * @param {string} label
 * @param {string} html
 */
export function cell(label, html, cls = '') {
  return `<td data-label="${esc(label)}"${cls ? ` class="${esc(cls)}"` : ''}>${html}</td>`;
}

/**
 * The element `selector` finds under `root`, as an instance of `type`; the page always has it, so a
 * missing one is a bug and throws.
 * @template {Element} T
 * @param {ParentNode} root
 * @param {string} selector
 * @param {{ new (): T, prototype: T }} type
 * @returns {T}
 */
export function find(root, selector, type) {
  const el = root.querySelector(selector);
  if (!(el instanceof type)) throw new Error(`the page has no ${type.name} at ${selector}`);
  return el;
}

/**
 * The closest ancestor-or-self of `el` matching `selector`, when it is an HTML element.
 * @param {Element} el
 * @param {string} selector
 * @returns {HTMLElement | null}
 */
export function closest(el, selector) {
  const found = el.closest(selector);
  return found instanceof HTMLElement ? found : null;
}
