/** Firewall policies with rules, applied to a server group (and so to LBs targeting that group). */
import { z } from 'zod';
import { Cidr, Id, Labels, ListMeta, Name, Timestamp } from './common.ts';

export const RuleDirection = { inbound: 'inbound', outbound: 'outbound' } as const;
export type RuleDirection = (typeof RuleDirection)[keyof typeof RuleDirection];

export const RuleProtocol = { tcp: 'tcp', udp: 'udp', icmp: 'icmp', any: 'any' } as const;
export type RuleProtocol = (typeof RuleProtocol)[keyof typeof RuleProtocol];

const validRange = (p: string): boolean => {
  const [a, b] = p.split('-').map(Number);
  return a! >= 1 && a! <= 65535 && (b === undefined || (b >= a! && b <= 65535));
};
/** `"80"` or `"8000-9000"`; null = all ports. */
export const PortRange = z
  .string()
  .regex(/^\d{1,5}(-\d{1,5})?$/, 'must be a port or a range like 8000-9000')
  .refine(validRange, 'ports must be 1-65535, low to high');

export const FirewallRule = z.strictObject({
  direction: z.enum(RuleDirection),
  protocol: z.enum(RuleProtocol),
  ports: PortRange.nullable(),
  source_cidrs: z.array(Cidr).max(64),
  destination_cidrs: z.array(Cidr).max(64),
  description: z.string().max(255),
});
export type FirewallRule = z.infer<typeof FirewallRule>;

/** Rule input: everything but direction/protocol has a default. */
export const FirewallRuleInput = z.strictObject({
  direction: z.enum(RuleDirection),
  protocol: z.enum(RuleProtocol),
  ports: PortRange.nullable().optional(),
  source_cidrs: z.array(Cidr).max(64).optional(),
  destination_cidrs: z.array(Cidr).max(64).optional(),
  description: z.string().max(255).optional(),
});
export type FirewallRuleInput = z.infer<typeof FirewallRuleInput>;

export const FirewallPolicy = z.object({
  id: Id,
  name: Name,
  description: z.string(),
  labels: Labels,
  server_group_id: Id.nullable(),
  rules: z.array(FirewallRule),
  created: Timestamp,
});
export type FirewallPolicy = z.infer<typeof FirewallPolicy>;

export const CreateFirewallPolicyRequest = z.strictObject({
  name: Name,
  description: z.string().max(255).optional(),
  labels: Labels.optional(),
  rules: z.array(FirewallRuleInput).max(100).optional(),
  server_group_id: Id.optional(),
});
export type CreateFirewallPolicyRequest = z.infer<typeof CreateFirewallPolicyRequest>;

export const UpdateFirewallPolicyRequest = z.strictObject({
  name: Name.optional(),
  description: z.string().max(255).optional(),
  labels: Labels.optional(),
});
export type UpdateFirewallPolicyRequest = z.infer<typeof UpdateFirewallPolicyRequest>;

export const SetFirewallRulesRequest = z.strictObject({ rules: z.array(FirewallRuleInput).max(100) });
export type SetFirewallRulesRequest = z.infer<typeof SetFirewallRulesRequest>;

export const ApplyFirewallPolicyRequest = z.strictObject({ server_group_id: Id });
export type ApplyFirewallPolicyRequest = z.infer<typeof ApplyFirewallPolicyRequest>;

export const FirewallPolicyResponse = z.object({ firewall_policy: FirewallPolicy });
export const FirewallPolicyListResponse = z.object({ firewall_policies: z.array(FirewallPolicy), meta: ListMeta });
