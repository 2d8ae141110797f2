/**
 * Linode persona: firewalls (list with X-Filter, create with rules and NodeBalancer devices, get, update,
 * delete), their rules (get, replace) and devices (list, add, get, remove), over simcloud's firewall
 * policies (fw-model.ts). Only NodeBalancers can be devices; a NodeBalancer has at most one firewall.
 */
import { z } from 'zod';
import type { Caller, Sim } from '../../server/context.ts';
import { invalidField, notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { commitPlans, ownedRecords, type Plan } from '../../server/resources/common.ts';
import * as svc from '../../server/resources/firewall-policies/service.ts';
import type { FirewallPolicyRec, LoadBalancerRec } from '../../server/store/state.ts';
import { NumericId, NumericIdParams, NumericPathId, numericIdOf } from '../numeric-ids.ts';
import { loopbackOf, presentedOf } from './addresses.ts';
import type { LinodeFirewallAttrs } from './attrs.ts';
import { ListQuery, NAME, PREFIX, linodeTime, owned, pageOf } from './common.ts';
import { RulesBody, devicesOf, fwAttrsOf, planFirewall, rulesView, saveWithDevices, setFirewall, simRules } from './fw-model.ts';
import { attrsOf } from './nb-model.ts';
import { Empty, Firewall, FirewallDevice, FirewallRules, page } from './responses.ts';
import { labelsOf, tagsOf } from './views.ts';

const Label = z
  .string()
  .min(3)
  .max(32)
  .regex(/^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$/, 'must be 3-32 letters, digits, dots, dashes or underscores');
const Tags = z.array(z.string().min(1).max(50)).max(50);
const Devices = z.object({
  nodebalancers: z.array(NumericId).max(50).optional(),
  linodes: z.array(NumericId).max(0, 'only NodeBalancer devices are emulated').optional(),
  linode_interfaces: z.array(NumericId).max(0, 'only NodeBalancer devices are emulated').optional(),
});
const CreateFirewallBody = z.object({ label: Label, rules: RulesBody, tags: Tags.optional(), devices: Devices.optional() });
const UpdateFirewallBody = z.object({ label: Label.optional(), status: z.enum(['enabled', 'disabled']).optional(), tags: Tags.optional() });
const DeviceBody = z.object({ id: NumericId, type: z.enum(['nodebalancer', 'linode', 'linode_interface']) });
const DeviceParams = z.object({ id: NumericPathId, did: NumericPathId });

function deviceView(lb: LoadBalancerRec): FirewallDevice {
  const n = numericIdOf(lb.id);
  return {
    id: n,
    entity: { id: n, type: 'nodebalancer', label: lb.name, url: `${PREFIX}/nodebalancers/${n}`, parent_entity: null },
    created: linodeTime(lb.created),
    updated: linodeTime(lb.created),
  };
}

export function firewallView(sim: Sim, p: FirewallPolicyRec): Firewall {
  return {
    id: numericIdOf(p.id),
    label: p.name,
    status: fwAttrsOf(p).status,
    tags: tagsOf(p.labels),
    rules: rulesView(p, presentedOf(sim)),
    entities: devicesOf(sim, p).map((lb) => deviceView(lb).entity),
    created: linodeTime(p.created),
    updated: linodeTime(p.created),
  };
}

/** A firewall's attachment to a NodeBalancer, checked and planned (`field` names the NodeBalancer's id in the request). */
function planAttach(sim: Sim, caller: Caller, p: FirewallPolicyRec, nb: { n: number; field: string }): Plan<LoadBalancerRec> {
  const lb = owned(sim, caller, 'nodebalancers', nb);
  const current = attrsOf(lb).firewall_id;
  if (current !== undefined && current !== null && current !== numericIdOf(p.id))
    throw invalidField(nb.field, `nodebalancer ${nb.n} already has firewall ${current}`);
  return planFirewall(sim, caller, lb, p);
}

/** Creates the firewall and attaches it to its devices in one commit: a crash leaves none of it or all. */
async function create(sim: Sim, caller: Caller, body: z.infer<typeof CreateFirewallBody>): Promise<Firewall> {
  const { rules, policies } = simRules(body.rules, loopbackOf(sim));
  const nbs = (body.devices?.nodebalancers ?? []).map((n, i) => ({ n, field: `devices.nodebalancers.${i}` }));
  for (const nb of nbs) owned(sim, caller, 'nodebalancers', nb);
  const attrs: LinodeFirewallAttrs = { ...policies, status: 'enabled' };
  const plan = svc.planFirewallPolicyCreate(sim, caller, { name: body.label, labels: labelsOf(body.tags ?? []), rules }, { dialect_attrs: { [NAME]: attrs } });
  await commitPlans(sim, [plan, ...nbs.map((nb) => planAttach(sim, caller, plan.doc, nb))]);
  return firewallView(sim, plan.doc);
}

async function update(sim: Sim, caller: Caller, n: number, body: z.infer<typeof UpdateFirewallBody>): Promise<Firewall> {
  const p = owned(sim, caller, 'networking/firewalls', n);
  const attrs: LinodeFirewallAttrs = { ...fwAttrsOf(p), status: body.status ?? fwAttrsOf(p).status };
  const labels = body.tags === undefined ? undefined : labelsOf(body.tags);
  return firewallView(
    sim,
    await saveWithDevices(sim, caller, svc.planFirewallPolicyUpdate(sim, caller, p.id, { fields: { name: body.label, labels }, attrs: { [NAME]: attrs } })),
  );
}

const firewallRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/networking/firewalls`,
    operation: 'linode.firewalls.list',
    summary: 'List firewalls',
    query: ListQuery,
    queryHeaders: ['X-Filter'],
    response: page(Firewall),
    handle: (sim, { caller, query }) =>
      pageOf(
        ownedRecords(sim, caller, 'firewall_policies').map((p) => firewallView(sim, p)),
        query,
      ),
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/networking/firewalls`,
    operation: 'linode.firewalls.create',
    summary: 'Create a firewall',
    body: CreateFirewallBody,
    response: Firewall,
    handle: (sim, { caller, body }) => create(sim, caller, body),
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/networking/firewalls/:id`,
    operation: 'linode.firewalls.get',
    summary: 'Get a firewall',
    params: NumericIdParams,
    response: Firewall,
    handle: (sim, { caller, params }) => firewallView(sim, owned(sim, caller, 'networking/firewalls', params.id)),
  }),
  defineRoute({
    method: 'put',
    path: `${PREFIX}/networking/firewalls/:id`,
    operation: 'linode.firewalls.update',
    summary: 'Update label, status or tags',
    params: NumericIdParams,
    body: UpdateFirewallBody,
    response: Firewall,
    handle: (sim, { caller, params, body }) => update(sim, caller, params.id, body),
  }),
  defineRoute({
    method: 'delete',
    path: `${PREFIX}/networking/firewalls/:id`,
    operation: 'linode.firewalls.delete',
    summary: 'Delete a firewall (its devices open)',
    params: NumericIdParams,
    response: Empty,
    handle: async (sim, { caller, params }) => {
      const p = owned(sim, caller, 'networking/firewalls', params.id);
      await commitPlans(sim, [...devicesOf(sim, p).map((lb) => planFirewall(sim, caller, lb, null)), svc.planFirewallPolicyDelete(sim, caller, p.id)]);
      return {};
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/networking/firewalls/:id/rules`,
    operation: 'linode.firewalls.rules.get',
    summary: "A firewall's rules",
    params: NumericIdParams,
    response: FirewallRules,
    handle: (sim, { caller, params }) => rulesView(owned(sim, caller, 'networking/firewalls', params.id), presentedOf(sim)),
  }),
  defineRoute({
    method: 'put',
    path: `${PREFIX}/networking/firewalls/:id/rules`,
    operation: 'linode.firewalls.rules.update',
    summary: "Replace a firewall's rules",
    params: NumericIdParams,
    body: RulesBody,
    response: FirewallRules,
    handle: async (sim, { caller, params, body }) => {
      const p = owned(sim, caller, 'networking/firewalls', params.id);
      const { rules, policies } = simRules(body, loopbackOf(sim));
      // The rules, the policies and the source ranges of every NodeBalancer they guard: one commit.
      const plan = svc.planFirewallPolicyUpdate(sim, caller, p.id, { fields: { rules }, attrs: { [NAME]: { ...fwAttrsOf(p), ...policies } } });
      return rulesView(await saveWithDevices(sim, caller, plan), presentedOf(sim));
    },
  }),
];

const deviceRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: `${PREFIX}/networking/firewalls/:id/devices`,
    operation: 'linode.firewalls.devices.list',
    summary: "A firewall's devices",
    params: NumericIdParams,
    query: ListQuery,
    queryHeaders: ['X-Filter'],
    response: page(FirewallDevice),
    handle: (sim, { caller, params, query }) => pageOf(devicesOf(sim, owned(sim, caller, 'networking/firewalls', params.id)).map(deviceView), query),
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/networking/firewalls/:id/devices`,
    operation: 'linode.firewalls.devices.create',
    summary: 'Attach a NodeBalancer',
    params: NumericIdParams,
    body: DeviceBody,
    response: FirewallDevice,
    handle: async (sim, { caller, params, body }) => {
      if (body.type !== 'nodebalancer') throw invalidField('type', 'only nodebalancer devices are emulated');
      const plan = planAttach(sim, caller, owned(sim, caller, 'networking/firewalls', params.id), { n: body.id, field: 'id' });
      await commitPlans(sim, [plan]);
      return deviceView(plan.doc);
    },
  }),
  defineRoute({
    method: 'get',
    path: `${PREFIX}/networking/firewalls/:id/devices/:did`,
    operation: 'linode.firewalls.devices.get',
    summary: 'Get a device',
    params: DeviceParams,
    response: FirewallDevice,
    handle: (sim, { caller, params }) => {
      const lb = devicesOf(sim, owned(sim, caller, 'networking/firewalls', params.id)).find((x) => numericIdOf(x.id) === params.did);
      if (lb === undefined) throw notFound('device', String(params.did));
      return deviceView(lb);
    },
  }),
  defineRoute({
    method: 'delete',
    path: `${PREFIX}/networking/firewalls/:id/devices/:did`,
    operation: 'linode.firewalls.devices.delete',
    summary: 'Detach a device',
    params: DeviceParams,
    response: Empty,
    handle: async (sim, { caller, params }) => {
      const lb = devicesOf(sim, owned(sim, caller, 'networking/firewalls', params.id)).find((x) => numericIdOf(x.id) === params.did);
      if (lb === undefined) throw notFound('device', String(params.did));
      await setFirewall(sim, caller, lb, null);
      return {};
    },
  }),
];

export const firewallAllRoutes: RouteDef[] = [...firewallRoutes, ...deviceRoutes];
