/**
 * simcloud records as Linode API v4 JSON (the shapes linodego parses): integer ids, `label` for the name,
 * tags for labels (`key=value`, or `key` for an empty value), Linode's statuses and timestamps. Pure
 * functions of the store; NodeBalancer configs and nodes are in nb-view.ts.
 */
import type { Server, ServerStatus } from '../../api/schema/servers.ts';
import { REGIONS, SERVER_TYPES } from '../../server/resources/catalogue/data.ts';
import type { Region, ServerType } from '../../api/schema/catalogue.ts';
import { LabelValue, isLabelKey } from '../../api/schema/common.ts';
import { invalidField } from '../../server/errors.ts';
import { numericIdOf } from '../numeric-ids.ts';
import type { Presented } from './addresses.ts';
import { linodeTime } from './common.ts';
import type { Instance, InstanceIP, InstanceIPs, LinodeType, Region as RegionView } from './responses.ts';

const STATUS: Record<ServerStatus, Instance['status']> = {
  initializing: 'provisioning',
  starting: 'booting',
  running: 'running',
  stopping: 'shutting_down',
  off: 'offline',
  deleting: 'deleting',
};

export const tagsOf = (labels: Record<string, string>): string[] => Object.entries(labels).map(([k, v]) => (v === '' ? k : `${k}=${v}`));

/**
 * Tags as simcloud labels; a tag must make a valid label key (and value), or the record would hold a label /v1
 * cannot show (its list answered 500 for a tag `;` or `a=.`).
 */
export function labelsOf(tags: readonly string[], field = 'tags'): Record<string, string> {
  return Object.fromEntries(
    tags.map((t, i) => {
      const eq = t.indexOf('=');
      if (t.length === 0) throw invalidField(`${field}.${i}`, 'must not be empty');
      const [key, value] = eq < 0 ? [t, ''] : [t.slice(0, eq), t.slice(eq + 1)];
      if (!isLabelKey(key))
        throw invalidField(
          `${field}.${i}`,
          "the part before '=' must be a label key: [prefix/]name, the name 1-63 letters, digits, dots, dashes or underscores, starting and ending with a letter or digit",
        );
      if (!LabelValue.safeParse(value).success)
        throw invalidField(
          `${field}.${i}`,
          "the part after '=' must be at most 63 letters, digits, dots, dashes or underscores, starting and ending with a letter or digit",
        );
      return [key, value];
    }),
  );
}

export function regionView(r: Region): RegionView {
  return {
    id: r.id,
    label: r.description,
    country: 'sim',
    capabilities: ['Linodes', 'NodeBalancers', 'Cloud Firewall'],
    status: 'ok',
    resolvers: { ipv4: '127.0.0.53', ipv6: '' },
    site_type: 'core',
    placement_group_limits: null,
    monitors: { alerts: [], metrics: [] },
  };
}

const FREE = { hourly: 0, monthly: 0 };

export function typeView(t: ServerType): LinodeType {
  return {
    id: t.id,
    label: `simcloud ${t.name}`,
    disk: t.disk_gb * 1024,
    class: 'standard',
    memory: t.memory_mb,
    vcpus: t.cores,
    transfer: 1000,
    network_out: 1000,
    gpus: 0,
    accelerated_devices: 0,
    successor: null,
    price: FREE,
    region_prices: [],
    addons: { backups: { price: FREE, region_prices: [] } },
  };
}

export const regionExists = (id: string): boolean => REGIONS.some((r) => r.id === id);

function specs(s: Server): Instance['specs'] {
  const t = SERVER_TYPES.find((x) => x.id === s.server_type);
  return { disk: (t?.disk_gb ?? 0) * 1024, memory: t?.memory_mb ?? 0, vcpus: t?.cores ?? 0, transfer: 1000, gpus: 0, accelerated_devices: 0 };
}

const NO_ALERTS = { cpu: 0, io: 0, network_in: 0, network_out: 0, transfer_quota: 0 };
const NO_BACKUPS = { enabled: false, available: false, last_successful: null, schedule: { day: null, window: null } };

/** The instance; `p` presents its network addresses as Linode's private ones (addresses.ts). */
export function instanceView(s: Server, p: Presented): Instance {
  const created = linodeTime(s.created);
  return {
    id: numericIdOf(s.id),
    label: s.name,
    region: s.region,
    type: s.server_type,
    image: `linode/${s.image}`,
    group: '',
    status: STATUS[s.status],
    ipv4: [s.public_ipv4, ...s.private_networks.map((n) => p.ip(n.ip))].filter((x) => x !== null),
    ipv6: null,
    tags: tagsOf(s.labels),
    created,
    updated: created,
    hypervisor: 'kvm',
    specs: specs(s),
    alerts: NO_ALERTS,
    backups: NO_BACKUPS,
    watchdog_enabled: true,
    has_user_data: false,
    host_uuid: '',
    placement_group: null,
    lke_cluster_id: null,
    capabilities: [],
    interface_generation: 'legacy_config',
    maintenance_policy: 'linode/migrate',
    locks: [],
    disk_encryption: 'disabled',
  };
}

/** The reverse DNS name every public address has here. */
export const rdnsOf = (address: string): string => `sim-${address.replace(/\./g, '-')}.ip.linodeusercontent.sim`;

function ip(s: Server, address: string, isPublic: boolean): InstanceIP {
  return {
    address,
    gateway: null,
    subnet_mask: isPublic ? '255.255.255.0' : '255.255.128.0',
    prefix: isPublic ? 24 : 17,
    type: 'ipv4',
    public: isPublic,
    rdns: isPublic ? rdnsOf(address) : null,
    linode_id: numericIdOf(s.id),
    interface_id: null,
    region: s.region,
    vpc_nat_1_1: null,
    reserved: false,
    tags: [],
    assigned_entity: null,
  };
}

/** GET /linode/instances/{id}/ips: the public address and each network address as private; no IPv6. */
export function ipsView(s: Server, p: Presented): InstanceIPs {
  return {
    ipv4: {
      public: s.public_ipv4 === null ? [] : [ip(s, s.public_ipv4, true)],
      private: s.private_networks.map((n) => ip(s, p.ip(n.ip), false)),
      shared: [],
      reserved: [],
      vpc: [],
    },
    ipv6: { link_local: null, slaac: null, global: [], vpc: [] },
  };
}
