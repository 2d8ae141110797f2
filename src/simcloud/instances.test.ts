import type { V1Node } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { InstanceNotFoundError } from '../cloud/errors.ts';
import { SimcloudInstances, type CloudServer, type ServerLookup } from './instances.ts';

const server: CloudServer = {
  id: 'srv-1',
  name: 'worker-1',
  status: 'running',
  serverType: 'sc-small',
  region: 'eu-sim',
  zone: 'eu-sim-a',
  publicIPv4: '127.0.10.1',
  privateIPs: ['10.0.0.5'],
};

function lookup(servers: CloudServer[], fail = false): ServerLookup & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    getServer: (id) => {
      calls.push(`get ${id}`);
      if (fail) return Promise.reject(new Error('server_error'));
      return Promise.resolve(servers.find((s) => s.id === id));
    },
    findServerByName: (name) => {
      calls.push(`byName ${name}`);
      return Promise.resolve(servers.find((s) => s.name === name));
    },
  };
}

const node = (name: string, providerID?: string): V1Node => ({ metadata: { name }, spec: providerID ? { providerID } : {} });

describe('SimcloudInstances', () => {
  it('looks up by providerID first, else by node name', async () => {
    const l = lookup([server]);
    const instances = new SimcloudInstances(l);
    expect(await instances.instanceExists(node('other-name', 'simcloud://srv-1'))).toBe(true);
    expect(await instances.instanceExists(node('worker-1'))).toBe(true);
    expect(l.calls).toEqual(['get srv-1', 'byName worker-1']);
  });

  it('builds metadata: type, region, zone, InternalIP/ExternalIP/Hostname', async () => {
    const md = await new SimcloudInstances(lookup([server])).instanceMetadata(node('worker-1'));
    expect(md).toEqual({
      providerID: 'simcloud://srv-1',
      instanceType: 'sc-small',
      region: 'eu-sim',
      zone: 'eu-sim-a',
      nodeAddresses: [
        { type: 'InternalIP', address: '10.0.0.5' },
        { type: 'ExternalIP', address: '127.0.10.1' },
        { type: 'Hostname', address: 'worker-1' },
      ],
      additionalLabels: {},
    });
  });

  it('reports shutdown only for a server that is off', async () => {
    const instances = new SimcloudInstances(lookup([server, { ...server, id: 'srv-2', status: 'off' }]));
    expect(await instances.instanceShutdown(node('x', 'simcloud://srv-1'))).toBe(false);
    expect(await instances.instanceShutdown(node('x', 'simcloud://srv-2'))).toBe(true);
    expect(await instances.instanceShutdown(node('x', 'simcloud://gone'))).toBe(false);
  });

  it('answers false only on a definite not_found and throws on errors', async () => {
    expect(await new SimcloudInstances(lookup([])).instanceExists(node('x', 'simcloud://gone'))).toBe(false);
    await expect(new SimcloudInstances(lookup([], true)).instanceExists(node('x', 'simcloud://srv-1'))).rejects.toThrow(
      'simcloud/Instances.InstanceExists: node x: server_error',
    );
  });

  it('throws InstanceNotFoundError from instanceMetadata when no server matches', async () => {
    await expect(new SimcloudInstances(lookup([])).instanceMetadata(node('nobody'))).rejects.toBeInstanceOf(InstanceNotFoundError);
  });

  it('rejects a foreign providerID instead of guessing', async () => {
    await expect(new SimcloudInstances(lookup([server])).instanceExists(node('x', 'aws:///i-1'))).rejects.toThrow(/expected simcloud:\/\//);
  });
});
