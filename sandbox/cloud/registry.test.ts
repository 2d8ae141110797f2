import { describe, expect, it } from 'vitest';
import { renderSummary } from '../cli/summary.ts';
import { cloudCcmEnv, commandCcmEnv, upstreamArgsFor } from '../ccm/launch.ts';
import { readyState } from '../state-fixture.ts';
import { digitaloceanCcmCommand } from './digitalocean/env.ts';
import { hcloudCcmCommand, hcloudCcmEnv, hcloudEndpoint, hcloudLocationOf } from './hcloud/env.ts';
import { clientIdOf } from '../../simulator/personas/phoenixnap/auth.ts';
import { linodeCcmCommand } from './linode/env.ts';
import { phoenixnapCcmCommand } from './phoenixnap/env.ts';
import { clientIdOf as brightboxClientIdOf } from '../../simulator/personas/brightbox/auth.ts';
import { defaultCcmFor } from '../sandbox.ts';
import { brightboxCcmCommand } from './brightbox/env.ts';
import { CLOUD_DESCRIPTORS, isCloudKind } from './registry.ts';

const sim = { url: 'http://127.0.0.1:4600', token: 'tok' };
const ctx = { stateDir: '/s/demo', clusterName: 'demo', clusterCidr: '10.244.0.0/16', simcloud: sim, network: 'demo', lbStrategy: 'lb' as const };

describe('the clouds a sandbox presents', () => {
  it('knows simcloud, hcloud, linode and digitalocean only', () => {
    expect(['simcloud', 'hcloud', 'linode', 'digitalocean', 'aws', ''].map(isCloudKind)).toEqual([true, true, true, true, false, false]);
  });

  it("gives each persona's Node the providerID its own CCM writes, and simcloud's its simcloud id", () => {
    expect(Object.fromEntries(CLOUD_DESCRIPTORS.map((d) => [d.kind, d.providerId('srv-00000042')]))).toEqual({
      simcloud: 'simcloud://srv-00000042',
      hcloud: 'hcloud://42',
      linode: 'linode://42',
      digitalocean: 'digitalocean://42',
      phoenixnap: 'phoenixnap://a10000000000000000000042',
      brightbox: 'brightbox://srv-00016',
    });
  });

  it('makes machines through every persona but not through simcloud, where any runtime works', () => {
    const token = { endpoint: 'http://127.0.0.1:1', token: 't' };
    expect(CLOUD_DESCRIPTORS.filter((d) => d.machines?.(token) !== undefined).map((d) => d.kind)).toEqual([
      'hcloud',
      'linode',
      'digitalocean',
      'phoenixnap',
      'brightbox',
    ]);
  });

  it("gives a DigitalOcean CCM DigitalOcean's variables (the bare simcloud URL, the token, the zone's region) and no routes", () => {
    // METRICS_ADDR: unset, DigitalOcean's CCM serves metrics on port 80 of every interface.
    const env = { DO_ACCESS_TOKEN: 'tok', DO_OVERRIDE_URL: 'http://127.0.0.1:4600/', REGION: 'sim-1', METRICS_ADDR: '127.0.0.1:0' };
    expect(cloudCcmEnv({ ...ctx, cloud: 'digitalocean' })).toEqual(env);
    expect(commandCcmEnv({ ...ctx, cloud: 'digitalocean' }, '/k')).toMatchObject({ ...env, KUBECONFIG: '/k' });
    const args = upstreamArgsFor({ ...ctx, cloud: 'digitalocean' }, '/k', 10258);
    expect(args[0]).toBe('--cloud-provider=digitalocean');
    expect(args).toContain('--configure-cloud-routes=false');
    expect(args).not.toContain('--allow-untagged-cloud');
  });

  it("gives a phoenixNAP CCM client credentials (the token as secret, its derived client id), the location and the persona's URLs", () => {
    const env = cloudCcmEnv({ ...ctx, cloud: 'phoenixnap' });
    expect(env).toEqual({
      PNAP_CLIENT_ID: clientIdOf('tok'),
      PNAP_CLIENT_SECRET: 'tok',
      PNAP_LOCATION: 'sim-1',
      PNAP_TOKEN_URL: 'http://127.0.0.1:4600/pnap/auth/realms/BMC/protocol/openid-connect/token',
      PNAP_BMC_API_URL: 'http://127.0.0.1:4600/pnap/bmc/v1',
      PNAP_IP_API_URL: 'http://127.0.0.1:4600/pnap/ips/v1',
      PNAP_NETWORK_API_URL: 'http://127.0.0.1:4600/pnap/networks/v1',
      SIMCLOUD_ENDPOINT: 'http://127.0.0.1:4600',
      SIMCLOUD_TOKEN: 'tok',
    });
    expect(upstreamArgsFor({ ...ctx, cloud: 'phoenixnap' }, '/k', 10258)).toContain('--configure-cloud-routes=false');
    expect(phoenixnapCcmCommand().startsWith('k8s-cloud-provider-bmc --cloud-provider=phoenixnap ')).toBe(true);
  });

  it("gives Brightbox's CCM an API client (the token as secret, its derived client id) and the persona's base URL; the upstream Go CCM is its default", () => {
    expect(cloudCcmEnv({ ...ctx, cloud: 'brightbox' })).toEqual({
      BRIGHTBOX_API_URL: 'http://127.0.0.1:4600/brightbox/',
      BRIGHTBOX_CLIENT: brightboxClientIdOf('tok'),
      BRIGHTBOX_CLIENT_SECRET: 'tok',
    });
    expect(brightboxClientIdOf('tok')).toMatch(/^cli-[0-9a-z]{5}$/);
    const command = brightboxCcmCommand();
    expect(command.startsWith('brightbox-cloud-controller-manager --cloud-provider=brightbox ')).toBe(true);
    for (const flag of [
      '--configure-cloud-routes=false',
      '--bind-address=127.0.0.1',
      '--secure-port=0',
      '--webhook-secure-port=0',
      '--cluster-name="$CCM_SANDBOX_CLUSTER_NAME"',
    ])
      expect(command).toContain(flag);
    expect(defaultCcmFor('brightbox')).toEqual({ kind: 'upstream' });
  });

  it("runs DigitalOcean's CCM from the slot's environment, serving on loopback only, without routes", () => {
    const command = digitaloceanCcmCommand();
    expect(command.startsWith('digitalocean-cloud-controller-manager --cloud-provider=digitalocean ')).toBe(true);
    for (const flag of [
      '--kubeconfig="$KUBECONFIG"',
      '--configure-cloud-routes=false',
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      '--secure-port=0',
    ]) {
      expect(command).toContain(flag);
    }
  });

  it("gives a Linode CCM Linode's variables (the /v4 URL, the token, the zone's region) and no routes", () => {
    const env = { LINODE_API_TOKEN: 'tok', LINODE_URL: 'http://127.0.0.1:4600/v4', LINODE_REGION: 'sim-1' };
    expect(cloudCcmEnv({ ...ctx, cloud: 'linode' })).toEqual(env);
    expect(commandCcmEnv({ ...ctx, cloud: 'linode' }, '/k')).toMatchObject({ ...env, KUBECONFIG: '/k' });
    const args = upstreamArgsFor({ ...ctx, cloud: 'linode' }, '/k', 10258);
    expect(args[0]).toBe('--cloud-provider=linode');
    expect(args).toContain('--configure-cloud-routes=false');
    expect(args).not.toContain('--allow-untagged-cloud');
  });

  it("runs Linode's CCM from the slot's environment, serving on loopback only, with its route controller on the cluster's VPC", () => {
    const command = linodeCcmCommand();
    expect(command.startsWith('linode-cloud-controller-manager --cloud-provider=linode ')).toBe(true);
    for (const flag of [
      '--kubeconfig="$KUBECONFIG"',
      '--configure-cloud-routes=true',
      '--cluster-cidr="$CCM_SANDBOX_CLUSTER_CIDR"',
      '--enable-route-controller',
      '--vpc-names="$CCM_SANDBOX_CLUSTER_NAME"',
      '--cluster-name="$CCM_SANDBOX_CLUSTER_NAME"',
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      '--secure-port=0',
    ]) {
      expect(command).toContain(flag);
    }
    expect(command).not.toContain('--configure-cloud-routes=false');
  });

  it("mounts the Hetzner dialect under /hcloud/v1 and maps a zone to its region's location", () => {
    expect(hcloudEndpoint('http://127.0.0.1:4600/')).toBe('http://127.0.0.1:4600/hcloud/v1');
    expect(hcloudLocationOf('sim-1b')).toBe('sim-1');
    expect(() => hcloudLocationOf('fsn1-dc14')).toThrow('simcloud has no zone fsn1-dc14');
  });

  it("gives a Hetzner CCM Hetzner's variables, keeping it off the metadata service and off non-loopback ports", () => {
    expect(hcloudCcmEnv({ simcloudUrl: sim.url, token: 'tok', network: 'demo', zone: 'sim-1a' })).toEqual({
      HCLOUD_ENDPOINT: 'http://127.0.0.1:4600/hcloud/v1',
      HCLOUD_TOKEN: 'tok',
      HCLOUD_NETWORK: 'demo',
      HCLOUD_LOAD_BALANCERS_LOCATION: 'sim-1',
      HCLOUD_LOAD_BALANCERS_TYPE: 'lb11',
      HCLOUD_NETWORK_DISABLE_ATTACHED_CHECK: 'true',
      HCLOUD_METRICS_ENABLED: 'false',
    });
    expect(cloudCcmEnv({ ...ctx, cloud: 'hcloud' })).toMatchObject({
      HCLOUD_ENDPOINT: 'http://127.0.0.1:4600/hcloud/v1',
      HCLOUD_LOAD_BALANCERS_LOCATION: 'sim-1',
    });
    expect(cloudCcmEnv(ctx)).toMatchObject({ SIMCLOUD_ENDPOINT: sim.url, SIMCLOUD_TOKEN: 'tok' });
    expect(Object.keys(commandCcmEnv({ ...ctx, cloud: 'hcloud' }, '/k'))).not.toContain('SIMCLOUD_TOKEN');
  });

  it('starts the upstream CCM with the hcloud provider, which needs --allow-untagged-cloud', () => {
    const hcloud = upstreamArgsFor({ ...ctx, cloud: 'hcloud' }, '/k', 10258);
    expect(hcloud.slice(0, 2)).toEqual(['--cloud-provider=hcloud', '--allow-untagged-cloud']);
    expect(upstreamArgsFor(ctx, '/k', 10258)).not.toContain('--allow-untagged-cloud');
    expect(upstreamArgsFor(ctx, '/k', 10258)[0]).toBe('--cloud-provider=simcloud');
  });

  it("runs Hetzner's CCM from the slot's environment, serving on loopback only", () => {
    const command = hcloudCcmCommand();
    expect(command.startsWith('hcloud-cloud-controller-manager --cloud-provider=hcloud --allow-untagged-cloud ')).toBe(true);
    const flags = [
      '--kubeconfig="$KUBECONFIG"',
      '--cluster-cidr="$CCM_SANDBOX_CLUSTER_CIDR"',
      '--bind-address=127.0.0.1',
      '--secure-port=0',
      '--webhook-secure-port=0',
      // as Hetzner's manifests: routes follow Node changes, so a Node is not left NetworkUnavailable for a period
      '--feature-gates=CloudControllerManagerWatchBasedRoutesReconciliation=true',
      '--route-reconciliation-period=30s',
    ];
    for (const flag of flags) {
      expect(command).toContain(flag);
    }
  });
});

describe('the summary of an hcloud sandbox', () => {
  const base = { simcloud: { ...sim, adminToken: 'adm', pid: 2 }, ccm: { kind: 'upstream', url: 'https://127.0.0.1:1', pid: 3 } };

  it("prints the hcloud endpoint, token and network, and the command line for Hetzner's CCM", () => {
    const text = renderSummary(readyState({ ...base, name: 'demo', cloud: 'hcloud' }));
    expect(text).toContain('ccm-sandbox "demo" is ready (local runtime, hcloud persona)');
    expect(text).toContain('  Hetzner Cloud API http://127.0.0.1:4600/hcloud/v1  (HCLOUD_TOKEN=tok)');
    expect(text).toContain(
      '  export HCLOUD_ENDPOINT=http://127.0.0.1:4600/hcloud/v1 HCLOUD_TOKEN=tok HCLOUD_NETWORK=demo HCLOUD_LOAD_BALANCERS_LOCATION=sim-1',
    );
    expect(text).toContain(`  npm run sandbox:up -- --name demo --cloud hcloud --ccm command --ccm-command '${hcloudCcmCommand()}'`);
  });

  it("prints Linode's URL, token and region, and the command line for Linode's CCM", () => {
    const text = renderSummary(readyState({ ...base, name: 'demo', cloud: 'linode' }));
    expect(text).toContain('ccm-sandbox "demo" is ready (local runtime, linode persona)');
    expect(text).toContain('  Linode API     http://127.0.0.1:4600/v4  (LINODE_API_TOKEN=tok)');
    expect(text).toContain('  export LINODE_API_TOKEN=tok LINODE_URL=http://127.0.0.1:4600/v4 LINODE_REGION=sim-1');
    expect(text).toContain(`  npm run sandbox:up -- --name demo --cloud linode --ccm command --ccm-command '${linodeCcmCommand()}'`);
    expect(text).not.toContain('HCLOUD');
  });

  it("prints DigitalOcean's URL, token and region, and the command line for DigitalOcean's CCM and its conformance run", () => {
    const text = renderSummary(readyState({ ...base, name: 'demo', cloud: 'digitalocean' }));
    expect(text).toContain('ccm-sandbox "demo" is ready (local runtime, digitalocean persona)');
    expect(text).toContain('  DigitalOcean API http://127.0.0.1:4600/v2  (DO_ACCESS_TOKEN=tok)');
    expect(text).toContain('  export DO_ACCESS_TOKEN=tok DO_OVERRIDE_URL=http://127.0.0.1:4600/ REGION=sim-1 METRICS_ADDR=127.0.0.1:0');
    expect(text).toContain(`  npm run sandbox:up -- --name demo --cloud digitalocean --ccm command --ccm-command '${digitaloceanCcmCommand()}'`);
    expect(text).toContain(`npm run conformance -- --cloud digitalocean --ccm command --ccm-command '${digitaloceanCcmCommand()}'`);
    expect(text).not.toContain('LINODE');
  });

  it('says nothing of hcloud for a simcloud sandbox (state files from before --cloud read as simcloud)', () => {
    const state = readyState(base);
    expect(state.cloud).toBe('simcloud');
    expect(renderSummary(state)).not.toContain('HCLOUD');
  });
});
