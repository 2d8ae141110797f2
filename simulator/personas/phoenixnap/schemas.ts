/**
 * phoenixNAP persona: the objects its routes answer with, as zod schemas following the SDKs' generated models
 * (bmcapi v1.2.2, ipapi v1.1.2, networkapi v1.1.3): a field the models require is required here, so a view that
 * drops one fails the response check.
 */
import { z } from 'zod';
import { TagAssignment } from './common.ts';

export const ServerPrivateNetwork = z.object({
  id: z.string(),
  ips: z.array(z.string()).optional(),
  dhcp: z.boolean().optional(),
  statusDescription: z.string().optional(),
});
/** bmcapi's ServerPublicNetwork. */
export const ServerPublicNetwork = z.object({ id: z.string(), ips: z.array(z.string()), statusDescription: z.string().optional() });
export const ServerIpBlock = z.object({ id: z.string(), vlanId: z.number().int().optional() });

export const Server = z.object({
  id: z.string(),
  status: z.string(),
  hostname: z.string(),
  description: z.string().optional(),
  os: z.string(),
  type: z.string(),
  location: z.string(),
  cpu: z.string(),
  cpuCount: z.number().int(),
  coresPerCpu: z.number().int(),
  cpuFrequency: z.number(),
  ram: z.string(),
  storage: z.string(),
  privateIpAddresses: z.array(z.string()),
  publicIpAddresses: z.array(z.string()),
  pricingModel: z.string(),
  networkType: z.string().optional(),
  tags: z.array(TagAssignment).optional(),
  provisionedOn: z.string().optional(),
  networkConfiguration: z.object({
    gatewayAddress: z.string().optional(),
    privateNetworkConfiguration: z.object({ configurationType: z.string(), privateNetworks: z.array(ServerPrivateNetwork) }),
    ipBlocksConfiguration: z.object({ configurationType: z.string(), ipBlocks: z.array(ServerIpBlock) }),
    publicNetworkConfiguration: z.object({ publicNetworks: z.array(ServerPublicNetwork) }),
  }),
});
export type Server = z.infer<typeof Server>;

export const ActionResult = z.object({ result: z.string() });
export const DeleteResult = z.object({ result: z.string(), serverId: z.string() });
/** The BMC API answers some calls with a bare string. */
export const TextResult = z.string();

export const IpBlock = z.object({
  id: z.string(),
  location: z.string(),
  cidrBlockSize: z.string(),
  cidr: z.string(),
  status: z.string(),
  assignedResourceId: z.string().optional(),
  assignedResourceType: z.string().optional(),
  description: z.string().optional(),
  tags: z.array(TagAssignment).optional(),
  isBringYourOwn: z.boolean(),
  createdOn: z.string(),
});
export type IpBlock = z.infer<typeof IpBlock>;
export const DeleteIpBlockResult = z.object({ result: z.string(), ipBlockId: z.string() });

const Membership = z.object({ resourceId: z.string(), resourceType: z.string(), ips: z.array(z.string()) });
export const PrivateNetwork = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  vlanId: z.number().int(),
  type: z.string(),
  location: z.string(),
  locationDefault: z.boolean(),
  cidr: z.string(),
  servers: z.array(z.object({ id: z.string(), ips: z.array(z.string()) })),
  memberships: z.array(Membership),
  createdOn: z.string(),
});
export type PrivateNetwork = z.infer<typeof PrivateNetwork>;

export const PublicNetworkIpBlock = z.object({ id: z.string() });
export const PublicNetwork = z.object({
  id: z.string(),
  vlanId: z.number().int(),
  memberships: z.array(Membership),
  name: z.string(),
  location: z.string(),
  description: z.string().optional(),
  createdOn: z.string(),
  ipBlocks: z.array(PublicNetworkIpBlock),
});
export type PublicNetwork = z.infer<typeof PublicNetwork>;

/** tagapi v1.1.3's Tag. */
export const Tag = z.object({
  id: z.string(),
  name: z.string(),
  values: z.array(z.string()).optional(),
  description: z.string().optional(),
  isBillingTag: z.boolean(),
  resourceAssignments: z.array(z.object({ resourceName: z.string(), value: z.string().optional() })).optional(),
  createdBy: z.string().optional(),
});
export type Tag = z.infer<typeof Tag>;

/** tagapi v1.1.3's DeleteResult. */
export const TagDeleteResult = z.object({ result: z.string(), tagId: z.string() });
