// Small DOM helpers: escaping, rendering a container only when its HTML changed (so focus and scroll
// survive the once-a-second state pushes), keeping keyboard focus across a re-render, and in-page links.

const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and attribute values. */
export function esc(value) {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESC[c]);
}

/** A test id / element id fragment from any text. */
export function slug(value) {
  return String(value ?? '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

const lastHtml = new WeakMap();

/** The element last jumped to: a live re-render replaces it, and the new one must keep the mark. */
let lastJump = null;

/** Marks the jump target; a re-rendered copy resumes the animation where it was (negative delay). */
function markJumped(el, elapsedMs) {
  el.style.animationDelay = elapsedMs > 0 ? `-${Math.round(elapsedMs)}ms` : '';
  el.classList.add('flash');
}

/** Replaces `el`'s content when `html` differs from what was rendered last; keeps focus on the same test id. */
export function render(el, html) {
  if (!el || lastHtml.get(el) === html) return false;
  const active = document.activeElement;
  const focusId = active && el.contains(active) ? active.getAttribute('data-testid') : null;
  el.innerHTML = html;
  lastHtml.set(el, html);
  if (focusId) el.querySelector(`[data-testid="${CSS.escape(focusId)}"]`)?.focus();
  const jumped = lastJump && el.querySelector(`#${CSS.escape(lastJump.id)}`);
  if (jumped) markJumped(jumped, performance.now() - lastJump.at);
  return true;
}

export function badge(text, kind, testid) {
  const t = testid ? ` data-testid="${esc(testid)}"` : '';
  return `<span class="badge badge-${esc(kind)}"${t}>${esc(text)}</span>`;
}

/** A link to another object's element (by id); the click handler in app.js scrolls to it and flashes it. */
export function jump(targetId, text, testid) {
  const t = testid ? ` data-testid="${esc(testid)}"` : '';
  return `<a href="#${esc(targetId)}" class="jump" data-jump="${esc(targetId)}"${t}>${esc(text)}</a>`;
}

export function empty(text, testid) {
  return `<p class="empty" data-testid="${esc(testid)}">${esc(text)}</p>`;
}

export function section(title, testid, body, count) {
  const n = count === undefined ? '' : ` <span class="count">${esc(count)}</span>`;
  return `<section class="panel" data-testid="${esc(testid)}"><h3>${esc(title)}${n}</h3>${body}</section>`;
}

export function timeOf(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleTimeString([], { hour12: false });
}

/** Scrolls to an element and flashes it, switching to the tab that holds it first. */
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

/** A table cell that names its column, so narrow screens can show rows as stacked cards. */
export function cell(label, html, cls = '') {
  return `<td data-label="${esc(label)}"${cls ? ` class="${esc(cls)}"` : ''}>${html}</td>`;
}
