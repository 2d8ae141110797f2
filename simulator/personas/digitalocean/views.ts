/**
 * simcloud records as DigitalOcean v2 JSON (the shapes godo parses): droplets with integer ids, sizes,
 * regions, networks and tags; actions with DigitalOcean's types and statuses. Pure functions of the store;
 * load balancers are in lb-view.ts.
 */
import type { Region, ServerType } from '../../api/schema/catalogue.ts';
import type { ServerStatus } from '../../api/schema/servers.ts';
import { IMAGES, REGIONS, SERVER_TYPES } from '../../server/resources/catalogue/data.ts';
import type { ActionRec, ServerRec } from '../../server/store/state.ts';
import * as svc from '../../server/resources/servers/service.ts';
import { numericIdOf } from '../numeric-ids.ts';
import { doTime, tagsOf, uuidOf } from './common.ts';
import type { Action, Droplet, Region as RegionView, Size } from './responses.ts';
import type { Sim } from '../../server/context.ts';
import { digitaloceanAddresses } from './addresses.ts';

/** A powered-off droplet being started is still `off` until it runs; one being stopped still `active`. */
const STATUS: Record<ServerStatus, Droplet['status']> = {
  initializing: 'new',
  starting: 'off',
  running: 'active',
  stopping: 'active',
  off: 'off',
  deleting: 'archive',
};

export function sizeView(t: ServerType): Size {
  return {
    slug: t.id,
    memory: t.memory_mb,
    vcpus: t.cores,
    disk: t.disk_gb,
    transfer: 1,
    price_monthly: 0,
    price_hourly: 0,
    regions: REGIONS.map((r) => r.id),
    available: true,
    description: `simcloud ${t.name}`,
  };
}

export function regionView(r: Region): RegionView {
  // The DigitalOcean CCM checks its REGION setting against region names, so the name is the slug too.
  return { slug: r.id, name: r.name, sizes: SERVER_TYPES.map((t) => t.id), available: true, features: ['private_networking', 'load_balancers'] };
}

const regionOf = (id: string): RegionView => regionView(REGIONS.find((r) => r.id === id) ?? { id, name: id, description: id });

function imageView(slug: string): Droplet['image'] {
  const i = IMAGES.findIndex((x) => x.id === slug);
  const img = IMAGES[i];
  return {
    id: i + 1,
    name: slug,
    type: 'base',
    distribution: img?.os_flavor ?? 'unknown',
    slug,
    public: true,
    regions: REGIONS.map((r) => r.id),
    min_disk_size: 10,
    size_gigabytes: 2,
    status: 'available',
  };
}

/** The public address, and each network address as a private one in the presented VPC block (addresses.ts). */
function networks(sim: Sim, s: ServerRec): Droplet['networks'] {
  const shown = digitaloceanAddresses(sim).show;
  const v4: Droplet['networks']['v4'] = [
    ...(s.public_ipv4 === null ? [] : [{ ip_address: s.public_ipv4, netmask: '255.255.255.0', gateway: '', type: 'public' as const }]),
    ...s.private_networks.map((p) => ({ ip_address: shown.ip(p.ip), netmask: '255.255.0.0', gateway: '', type: 'private' as const })),
  ];
  return { v4, v6: [] };
}

export function dropletView(sim: Sim, rec: ServerRec): Droplet {
  const s = svc.toServer(rec);
  const t = SERVER_TYPES.find((x) => x.id === s.server_type);
  const size = sizeView(t ?? { id: s.server_type, name: s.server_type, cores: 0, memory_mb: 0, disk_gb: 0 });
  const vpc = s.private_networks[0];
  return {
    id: numericIdOf(s.id),
    name: s.name,
    memory: t?.memory_mb ?? 0,
    vcpus: t?.cores ?? 0,
    disk: t?.disk_gb ?? 0,
    locked: s.locked,
    status: STATUS[s.status],
    kernel: null,
    created_at: doTime(s.created),
    features: ['private_networking'],
    backup_ids: [],
    next_backup_window: null,
    snapshot_ids: [],
    image: imageView(s.image),
    volume_ids: [],
    size,
    size_slug: s.server_type,
    networks: networks(sim, rec),
    region: regionOf(s.region),
    tags: tagsOf(s.labels),
    vpc_uuid: vpc === undefined ? '' : uuidOf(vpc.network_id),
  };
}

const ACTION_TYPE: Partial<Record<ActionRec['command'], string>> = {
  create_server: 'create',
  delete_server: 'destroy',
  poweron_server: 'power_on',
  poweroff_server: 'power_off',
  shutdown_server: 'shutdown',
  reboot_server: 'reboot',
  create_load_balancer: 'create',
  update_load_balancer: 'update',
  delete_load_balancer: 'destroy',
};
const ACTION_STATUS: Record<ActionRec['status'], Action['status']> = { running: 'in-progress', success: 'completed', error: 'errored' };

/** `regionId`: the droplet's region, for an action on a droplet. */
/** What an action concerns: a droplet by number, anything else by simcloud's type. */
function resourceOf(a: ActionRec): { resource_id: number; resource_type: string } {
  const res = a.resources[0];
  if (res === undefined) return { resource_id: 0, resource_type: 'backend' };
  return res.type === 'server' ? { resource_id: numericIdOf(res.id), resource_type: 'droplet' } : { resource_id: 0, resource_type: res.type };
}

export function actionView(a: ActionRec, regionId: string | undefined): Action {
  return {
    id: numericIdOf(a.id),
    status: ACTION_STATUS[a.status],
    type: ACTION_TYPE[a.command] ?? a.command,
    started_at: doTime(a.started),
    completed_at: a.finished === null ? null : doTime(a.finished),
    ...resourceOf(a),
    region: regionId === undefined ? null : regionOf(regionId),
    region_slug: regionId ?? null,
  };
}
