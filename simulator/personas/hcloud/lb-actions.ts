/**
 * Hetzner persona: the load balancer actions. Each computes the LB's new simcloud fields and Hetzner
 * attributes and commits them, with the update_load_balancer action that applies them, in one commit through
 * simcloud's LB service (its target and name checks): the LB is locked and `updating` until the data plane
 * has the change.
 */
import type { z } from 'zod';
import type { UpdateLoadBalancerRequest } from '../../api/schema/load-balancers.ts';
import type { Caller, Sim } from '../../server/context.ts';
import { conflict, invalidField, notFound } from '../../server/errors.ts';
import { defineRoute, type RouteDef } from '../../server/route-definitions.ts';
import { ensureUnlocked } from '../../server/resources/common.ts';
import * as svc from '../../server/resources/load-balancers/service.ts';
import type { ActionRec, LoadBalancerRec } from '../../server/store/state.ts';
import { NumericIdParams } from '../numeric-ids.ts';
import { NAME, PREFIX, owned } from './common.ts';
import { HcloudError } from './errors.ts';
import { attrsOf, type HcloudLbAttrs } from './lb-attrs.ts';
import { sameTarget, targetKey, toSimService, toSimTarget, withHttpRedirects } from './lb-convert.ts';
import { mergeService } from './lb-merge.ts';
import { checkLimits, checkPrivateTargets } from './lb-rules.ts';
import {
  AttachToNetworkBody,
  ChangeAlgorithmBody,
  ChangeDnsPtrBody,
  ChangeTypeBody,
  DeleteServiceBody,
  RemoveTargetBody,
  ServiceBody,
  TargetBody,
  UpdateServiceBody,
} from './lb-schemas.ts';
import { lbType } from './load-balancers.ts';
import { NetworkOnly, Empty } from './schemas.ts';
import { ActionAnswer } from './responses.ts';
import { actionView, sameIpv6 } from './views.ts';
import { loopbackIp, loopbackTarget } from './addresses.ts';

interface Next {
  patch: UpdateLoadBalancerRequest;
  attrs: HcloudLbAttrs;
}
/** What an action sees: the caller, the LB as stored and a copy of its attributes to change. */
interface Ctx {
  sim: Sim;
  caller: Caller;
  lb: LoadBalancerRec;
  attrs: HcloudLbAttrs;
}
type Mutate<B> = (c: Ctx, body: B) => Next;

/** The LB's new fields and Hetzner attributes, committed with the action that applies them (one commit). */
async function change<B>(c: { sim: Sim; caller: Caller; n: number }, body: B, mutate: Mutate<B>): Promise<ActionRec> {
  const { sim, caller, n } = c;
  const lb = owned(sim, caller, 'load_balancers', n);
  ensureUnlocked(lb, 'load balancer');
  if (lb.status === 'deleting') throw conflict(`load balancer ${n} is being deleted`);
  const next = mutate({ sim, caller, lb, attrs: structuredClone(attrsOf(lb)) }, body);
  if (next.patch.services !== undefined) next.patch.services = withHttpRedirects(next.patch.services, next.attrs);
  checkLimits({ services: next.patch.services ?? lb.services, targets: next.patch.targets ?? lb.targets }, next.attrs);
  return svc.updateLoadBalancerByAction(sim, caller, lb.id, { fields: next.patch, attrs: { [NAME]: next.attrs } });
}

function lbAction<B>(name: string, body: z.ZodType<B>, mutate: Mutate<B>): RouteDef {
  return defineRoute({
    method: 'post',
    path: `${PREFIX}/load_balancers/:id/actions/${name}`,
    operation: `hcloud.loadBalancers.${name}`,
    summary: `${name.replace(/_/g, ' ')}`,
    params: NumericIdParams,
    body,
    status: 201,
    response: ActionAnswer,
    handle: async (sim, { caller, params, body: input }) => {
      return { action: actionView(await change({ sim, caller, n: params.id }, input, mutate), name) };
    },
  });
}

const addService: Mutate<z.infer<typeof ServiceBody>> = ({ sim, caller, lb, attrs }, body) => {
  const { service, attrs: serviceAttrs } = toSimService({ sim, caller }, body);
  if (lb.services.some((s) => s.listen_port === service.listen_port)) {
    throw new HcloudError('source_port_already_used', 'conflict', `listen port ${service.listen_port} is in use`, 'listen_port');
  }
  attrs.services[String(service.listen_port)] = serviceAttrs;
  return { patch: { services: [...lb.services, service] }, attrs };
};

const updateService: Mutate<z.infer<typeof UpdateServiceBody>> = ({ sim, caller, lb, attrs }, body) => {
  const existing = lb.services.find((s) => s.listen_port === body.listen_port);
  if (existing === undefined) throw notFound('service on port', String(body.listen_port), 'listen_port');
  const { service, attrs: serviceAttrs } = toSimService({ sim, caller }, mergeService(existing, attrs.services[String(body.listen_port)], body));
  attrs.services[String(body.listen_port)] = serviceAttrs;
  return { patch: { services: lb.services.map((s) => (s.listen_port === body.listen_port ? service : s)) }, attrs };
};

const deleteService: Mutate<z.infer<typeof DeleteServiceBody>> = ({ lb, attrs }, body) => {
  if (!lb.services.some((s) => s.listen_port === body.listen_port)) throw notFound('service on port', String(body.listen_port), 'listen_port');
  delete attrs.services[String(body.listen_port)];
  return { patch: { services: lb.services.filter((s) => s.listen_port !== body.listen_port) }, attrs };
};

const addTarget: Mutate<z.infer<typeof TargetBody>> = ({ sim, caller, lb, attrs }, sent) => {
  const body = loopbackTarget(sim, sent);
  const target = toSimTarget(sim, caller, body);
  if (lb.targets.some((t) => sameTarget(t, target)))
    throw new HcloudError('target_already_defined', 'conflict', `target ${targetKey(body)} is already defined`, 'type');
  checkPrivateTargets(sim, lb.network_id, [body]);
  if (body.use_private_ip !== undefined) attrs.use_private_ip[targetKey(body)] = body.use_private_ip;
  return { patch: { targets: [...lb.targets, target] }, attrs };
};

const removeTarget: Mutate<z.infer<typeof RemoveTargetBody>> = ({ sim, caller, lb, attrs }, sent) => {
  const body = loopbackTarget(sim, sent);
  const target = toSimTarget(sim, caller, body);
  if (!lb.targets.some((t) => sameTarget(t, target))) throw notFound('target', targetKey(body), 'type');
  delete attrs.use_private_ip[targetKey(body)];
  return { patch: { targets: lb.targets.filter((t) => !sameTarget(t, target)) }, attrs };
};

const setAttrs =
  <B>(f: (attrs: HcloudLbAttrs, body: B, lb: LoadBalancerRec) => void): Mutate<B> =>
  ({ lb, attrs }, body) => {
    f(attrs, body, lb);
    return { patch: {}, attrs };
  };

/** Either public address: the IPv4 VIP or the IPv6 (Hetzner's CCM sets the latter from its ipv6-rdns annotation). */
const changeDnsPtr = setAttrs<z.infer<typeof ChangeDnsPtrBody>>((attrs, body, lb) => {
  if (body.ip === lb.public_ipv4) attrs.dns_ptr = body.dns_ptr;
  else if (sameIpv6(body.ip, lb.public_ipv6)) attrs.dns_ptr_ipv6 = body.dns_ptr;
  else throw invalidField('ip', `${body.ip} is not an address of this load balancer (${lb.public_ipv4}, ${lb.public_ipv6})`);
});

/** attach_to_network and detach_from_network run simcloud's own network actions. */
const networkRoutes: RouteDef[] = [
  defineRoute({
    method: 'post',
    path: `${PREFIX}/load_balancers/:id/actions/attach_to_network`,
    operation: 'hcloud.loadBalancers.attach_to_network',
    summary: 'attach to network',
    params: NumericIdParams,
    body: AttachToNetworkBody,
    status: 201,
    response: ActionAnswer,
    handle: async (sim, { caller, params, body }) => {
      const lb = owned(sim, caller, 'load_balancers', params.id);
      const network = owned(sim, caller, 'networks', { n: body.network, field: 'network' });
      if (lb.network_id !== null)
        throw new HcloudError('load_balancer_already_attached', 'conflict', `load balancer ${params.id} is already on a network`, 'network');
      return { action: actionView(await svc.attachLoadBalancer(sim, caller, lb.id, { network_id: network.id, ip: loopbackIp(sim, body.ip) })) };
    },
  }),
  defineRoute({
    method: 'post',
    path: `${PREFIX}/load_balancers/:id/actions/detach_from_network`,
    operation: 'hcloud.loadBalancers.detach_from_network',
    summary: 'detach from network',
    params: NumericIdParams,
    body: NetworkOnly,
    status: 201,
    response: ActionAnswer,
    handle: async (sim, { caller, params, body }) => {
      const lb = owned(sim, caller, 'load_balancers', params.id);
      const network = owned(sim, caller, 'networks', { n: body.network, field: 'network' });
      if (lb.network_id !== network.id) {
        throw new HcloudError('load_balancer_not_attached_to_network', 'conflict', `load balancer ${params.id} is not on network ${body.network}`, 'network');
      }
      return { action: actionView(await svc.detachLoadBalancer(sim, caller, lb.id)) };
    },
  }),
];

export const loadBalancerActionRoutes: RouteDef[] = [
  lbAction('add_service', ServiceBody, addService),
  lbAction('update_service', UpdateServiceBody, updateService),
  lbAction('delete_service', DeleteServiceBody, deleteService),
  lbAction('add_target', TargetBody, addTarget),
  lbAction('remove_target', RemoveTargetBody, removeTarget),
  lbAction('change_algorithm', ChangeAlgorithmBody, ({ attrs }, body) => ({ patch: { algorithm: body.type }, attrs })),
  lbAction(
    'change_type',
    ChangeTypeBody,
    setAttrs((attrs, body) => void (attrs.load_balancer_type = lbType(body.load_balancer_type))),
  ),
  lbAction('enable_public_interface', Empty, ({ attrs }) => ({ patch: { public_interface: true }, attrs })),
  lbAction('disable_public_interface', Empty, ({ attrs }) => ({ patch: { public_interface: false }, attrs })),
  lbAction('change_dns_ptr', ChangeDnsPtrBody, changeDnsPtr),
  ...networkRoutes,
];
