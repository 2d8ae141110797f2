/**
 * Fault rules are data (`/_sim/faults`). Request-level kinds (latency, error, rate_limit,
 * intermittent_not_found) are checked by the faults middleware; eventual_consistency by list
 * endpoints; stuck_transition by the action engine. A rule fires with `probability` and at most
 * `count` times.
 */
import type { ResourceType } from '../api/schema/common.ts';
import type { FaultKind, FaultRule, FaultRuleInput } from '../api/schema/internal.ts';
import { matchesSelector, parseSelector } from '../api/schema/label-selector.ts';
import { own } from '../../lib/keyed.ts';
import { RESOURCE_TYPE_OF } from './store/state.ts';

export interface RequestFacts {
  method: string;
  path: string;
  resourceType: ResourceType | undefined;
  tokenId: string | undefined;
  /** Labels of the addressed resource, looked up only when a rule needs them. */
  labels: () => Record<string, string> | undefined;
}

export interface Budget {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

export function resourceTypeOfPath(path: string): ResourceType | undefined {
  const m = /^\/v1\/([a-z_]+)/.exec(path);
  return m ? own<ResourceType>(RESOURCE_TYPE_OF, m[1]!) : undefined;
}

export function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    '^' +
      escaped
        .split('**')
        .map((part) => part.replace(/\*/g, '[^/]*'))
        .join('.*') +
      '/?$',
  );
}

interface CompiledRule {
  rule: FaultRule;
  path: RegExp | undefined;
}

export class FaultEngine {
  #rules: CompiledRule[] = [];
  #windows = new Map<string, { start: number; count: number }>();
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #newId: () => string;

  constructor(opts: { now: () => number; random?: () => number; newId: () => string }) {
    this.#now = opts.now;
    this.#random = opts.random ?? Math.random;
    this.#newId = opts.newId;
  }

  get size(): number {
    return this.#rules.length;
  }

  add(input: FaultRuleInput): FaultRule {
    const rule = { ...input, id: this.#newId(), fired: 0, created: new Date(this.#now()).toISOString() };
    this.#rules.push({ rule, path: input.match?.path === undefined ? undefined : globToRegExp(input.match.path) });
    return rule;
  }

  list(): FaultRule[] {
    return this.#rules.map((r) => r.rule);
  }

  remove(id: string): boolean {
    const before = this.#rules.length;
    this.#rules = this.#rules.filter((r) => r.rule.id !== id);
    return this.#rules.length < before;
  }

  clear(): void {
    this.#rules = [];
    this.#windows.clear();
  }

  /** Rules of `kind` that match the request and fire now (counting them as fired), at most `limit`, in order. */
  fire(kind: FaultKind, facts: RequestFacts, limit = Infinity): FaultRule[] {
    const fired: FaultRule[] = [];
    for (const c of this.#rules) {
      if (fired.length >= limit) break;
      if (c.rule.kind !== kind || !this.#matches(c, facts) || !this.#rolls(c.rule)) continue;
      c.rule.fired++;
      fired.push(c.rule);
    }
    return fired;
  }

  /** The tightest rate_limit budget over the matching rules after counting this request, or null. */
  consumeBudget(facts: RequestFacts): Budget | null {
    let tightest: Budget | null = null;
    for (const c of this.#rules) {
      if (c.rule.kind !== 'rate_limit' || !this.#matches(c, facts)) continue;
      const budget = this.#consume(c.rule.id, facts.tokenId ?? 'anonymous', c.rule);
      if (budget.remaining < 0) c.rule.fired++;
      if (tightest === null || budget.remaining < tightest.remaining) tightest = budget;
    }
    return tightest;
  }

  /** A fixed-window counter keyed by rule and token; remaining < 0 means over budget. */
  consumeWindow(key: string, limit: number, windowSeconds: number): Budget {
    const now = this.#now();
    const w = this.#windows.get(key);
    const current = w === undefined || now - w.start >= windowSeconds * 1000 ? { start: now, count: 0 } : w;
    current.count++;
    this.#windows.set(key, current);
    const resetSeconds = Math.max(1, Math.ceil((current.start + windowSeconds * 1000 - now) / 1000));
    return { limit, remaining: limit - current.count, resetSeconds };
  }

  /** How long new resources of this type stay out of lists (ms); 0 = visible at once. */
  hiddenForMs(resourceType: ResourceType): number {
    let ms = 0;
    for (const { rule } of this.#rules) {
      if (rule.kind !== 'eventual_consistency') continue;
      if (rule.match?.resource_type !== undefined && rule.match.resource_type !== resourceType) continue;
      ms = Math.max(ms, rule.hide_seconds * 1000);
    }
    return ms;
  }

  /** Whether a transition of this resource must wait (a stuck_transition rule matches). */
  isStuck(resourceType: ResourceType, labels: Record<string, string>): boolean {
    return this.#rules.some(
      ({ rule }) =>
        rule.kind === 'stuck_transition' &&
        (rule.match?.resource_type === undefined || rule.match.resource_type === resourceType) &&
        (rule.match?.label === undefined || matchesSelector(parseSelector(rule.match.label), labels)),
    );
  }

  #consume(ruleId: string, tokenKey: string, rule: Extract<FaultRule, { kind: 'rate_limit' }>): Budget {
    return this.consumeWindow(`${ruleId}:${tokenKey}`, rule.limit, rule.window_seconds);
  }

  #rolls(rule: FaultRule): boolean {
    if (rule.count !== undefined && rule.fired >= rule.count) return false;
    return rule.probability === undefined || rule.probability >= 1 || this.#random() < rule.probability;
  }

  #matches(c: CompiledRule, facts: RequestFacts): boolean {
    const m = c.rule.match;
    if (m === undefined) return true;
    const same = (want: string | undefined, got: string | undefined): boolean => want === undefined || want === got;
    return (
      same(m.method?.toUpperCase(), facts.method) &&
      (c.path === undefined || c.path.test(facts.path)) &&
      same(m.resource_type, facts.resourceType) &&
      same(m.token, facts.tokenId) &&
      (m.label === undefined || this.#labelMatches(m.label, facts))
    );
  }

  #labelMatches(selector: string, facts: RequestFacts): boolean {
    const labels = facts.labels();
    return labels !== undefined && matchesSelector(parseSelector(selector), labels);
  }
}
