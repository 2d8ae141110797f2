/**
 * `--controllers`: which controllers run (upstream semantics). `*` = every default controller, `name` enables
 * one, `-name` disables one; canonical names and aliases are both accepted. No controller is off by default.
 */
import { ControllerName } from '../controllers/names.ts';

export { ControllerName };

/** The canonical names (upstream `cloud-provider/names`), keyed for the manager. */
export const ControllerNames = {
  cloudNode: ControllerName.CloudNode,
  cloudNodeLifecycle: ControllerName.CloudNodeLifecycle,
  service: ControllerName.Service,
  route: ControllerName.Route,
} as const;

const ALIASES: Readonly<Record<string, ControllerName>> = {
  'cloud-node': ControllerNames.cloudNode,
  'cloud-node-lifecycle': ControllerNames.cloudNodeLifecycle,
  service: ControllerNames.service,
  route: ControllerNames.route,
};

const ALL: readonly ControllerName[] = Object.values(ControllerNames);

function canonical(name: string): ControllerName | undefined {
  return ALL.find((c) => c === name) ?? ALIASES[name];
}

/** The enabled controllers, or throws naming every unknown entry. */
export function enabledControllers(list: readonly string[]): Set<ControllerName> {
  const unknown = list.filter((item) => item !== '*' && canonical(item.replace(/^-/, '')) === undefined);
  if (unknown.length > 0) {
    const known = [...ALL, ...Object.keys(ALIASES)].join(', ');
    throw new Error(`--controllers: unknown controller(s) ${unknown.join(', ')}; known: ${known}`);
  }
  const enabled = new Set<ControllerName>(list.includes('*') ? ALL : []);
  for (const item of list) {
    if (item === '*') continue;
    const name = canonical(item.replace(/^-/, ''));
    if (name === undefined) continue;
    if (item.startsWith('-')) enabled.delete(name);
    else enabled.add(name);
  }
  return enabled;
}
