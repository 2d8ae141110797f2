/**
 * Kubernetes-style label selectors (`a=b,c!=d,e,!f,g in (h,i),j notin (k)`): a parser and a matcher,
 * shared by the server (filtering) and clients (validation before sending).
 */
export const SelectorOp = { eq: 'eq', neq: 'neq', exists: 'exists', absent: 'absent', in: 'in', notin: 'notin' } as const;
export type SelectorOp = (typeof SelectorOp)[keyof typeof SelectorOp];

export interface Requirement {
  key: string;
  op: SelectorOp;
  values: string[];
}

export class SelectorSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorSyntaxError';
  }
}

const KEY = '([A-Za-z0-9][A-Za-z0-9._/-]*)';
const VALUE = '([A-Za-z0-9._-]*)';
const SET = new RegExp(`^${KEY}\\s+(in|notin)\\s+\\(([^)]*)\\)$`);
const EQ = new RegExp(`^${KEY}\\s*(==|=|!=)\\s*${VALUE}$`);
const EXISTS = new RegExp(`^(!?)${KEY}$`);

/** Splits on commas that are not inside parentheses. */
function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    const ch = selector[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms.map((t) => t.trim());
}

function parseTerm(term: string): Requirement {
  const set = SET.exec(term);
  if (set) {
    const values = set[3]!
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
    if (values.length === 0) throw new SelectorSyntaxError(`"${term}": empty value set`);
    return { key: set[1]!, op: set[2] === 'in' ? 'in' : 'notin', values };
  }
  const eq = EQ.exec(term);
  if (eq) return { key: eq[1]!, op: eq[2] === '!=' ? 'neq' : 'eq', values: [eq[3]!] };
  const ex = EXISTS.exec(term);
  if (ex) return { key: ex[2]!, op: ex[1] === '!' ? 'absent' : 'exists', values: [] };
  throw new SelectorSyntaxError(`"${term}" is not a label requirement`);
}

/** Parses a selector; the empty string selects everything. Throws SelectorSyntaxError. */
export function parseSelector(selector: string): Requirement[] {
  if (selector.trim() === '') return [];
  return splitTerms(selector).map((term) => {
    if (term === '') throw new SelectorSyntaxError('empty requirement');
    return parseTerm(term);
  });
}

const POSITIVE: ReadonlySet<SelectorOp> = new Set(['eq', 'exists', 'in']);

function matchesOne(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const value = Object.hasOwn(labels, r.key) ? labels[r.key] : undefined;
  // Negative operators are the complement of their positive twin (k8s semantics: a missing key matches != and notin).
  const positive = POSITIVE.has(r.op);
  let hit: boolean;
  if (r.op === 'exists' || r.op === 'absent') hit = value !== undefined;
  else hit = value !== undefined && r.values.includes(value);
  return positive ? hit : !hit;
}

export function matchesSelector(requirements: readonly Requirement[], labels: Readonly<Record<string, string>>): boolean {
  return requirements.every((r) => matchesOne(r, labels));
}

/** `{a: 'b'}` → `a=b`, for clients building equality selectors. */
export function formatSelector(labels: Readonly<Record<string, string>>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}
