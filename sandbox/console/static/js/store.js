// @ts-check
// The UI's store: the last state pushed by the console server (cloud, cluster, links), the timeline
// entries by id, and the stream's connection status. One EventSource on /api/stream feeds it; the
// browser reconnects by itself and the server replays the timeline on every connect.

/** @typedef {import('./types').Store} Store */
/** @typedef {import('./types').TimelineEntry} TimelineEntry */

/** @type {Set<(s: Store) => void>} */
const listeners = new Set();

/** @type {Store} */
export const store = {
  state: null,
  entries: new Map(),
  connection: 'connecting',
  annotations: [],
};

/** @param {(s: Store) => void} fn */
export function onChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

let scheduled = false;
/** @param {string} what */
function changed(what) {
  store.lastChange = what;
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    for (const fn of listeners) fn(store);
  });
}

/** @param {TimelineEntry[]} list */
function addEntries(list) {
  for (const e of list) store.entries.set(e.id, e);
  changed('timeline');
}

export function connect() {
  const source = new EventSource('api/stream');
  source.addEventListener('open', () => {
    store.connection = 'live';
    changed('connection');
  });
  source.addEventListener('error', () => {
    store.connection = 'reconnecting';
    changed('connection');
  });
  source.addEventListener('state', (m) => {
    store.state = JSON.parse(m.data);
    store.connection = 'live';
    changed('state');
  });
  source.addEventListener('timeline-batch', (m) => addEntries(JSON.parse(m.data)));
  source.addEventListener('timeline', (m) => addEntries([JSON.parse(m.data)]));
  return source;
}

/** The per-sandbox token the console server put in index.html; state changes need it. */
function consoleToken() {
  return document.querySelector('meta[name="console-token"]')?.getAttribute('content') ?? '';
}

/**
 * POSTs an action; resolves to `{ ok, message, field }` whatever the outcome.
 * @param {string} path
 * @param {object} body
 * @returns {Promise<import('./types').ActionResult>}
 */
export async function postAction(path, body = {}) {
  try {
    const headers = { 'content-type': 'application/json', 'x-console-token': consoleToken() };
    const res = await fetch(`api/actions/${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const data = await res.json().catch(() => ({ message: `HTTP ${res.status}` }));
    return { ok: res.ok, message: data.message ?? '', field: data.field ?? null };
  } catch (err) {
    return { ok: false, message: `the console server is unreachable: ${err instanceof Error ? err.message : String(err)}`, field: null };
  }
}

export async function loadAnnotations() {
  try {
    const res = await fetch('api/annotations');
    store.annotations = res.ok ? await res.json() : [];
  } catch {
    store.annotations = [];
  }
  changed('annotations');
}

/**
 * Timeline entries in arrival order.
 * @returns {TimelineEntry[]}
 */
export function entryList() {
  return [...store.entries.values()].sort((a, b) => a.id - b.id);
}
