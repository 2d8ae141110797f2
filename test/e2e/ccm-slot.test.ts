// The sandbox's CCM slot with a CCM of the user's own: `command` runs a shell command line (here the upstream
// Go CCM's) as the ServiceAccount kube-system/cloud-controller-manager, supervised; `none` leaves the nodes
// tainted and says how to run one by hand (here: exactly that, which initialises them); a bad command fails
// `up` naming the command with its log, and leaves nothing running.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AuthenticationV1Api, CoreV1Api, type V1Node } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { PooledKubeConfig } from '../../sandbox/kube/pooled-kubeconfig.ts';
import { CCM_USER } from '../../sandbox/ccm/identity.ts';
import { commandCcmEnv, upstreamArgsFor } from '../../sandbox/ccm/launch.ts';
import { ensureUpstreamCcmBinary } from '../../sandbox/ccm/upstream.ts';
import { renderSummary } from '../../sandbox/cli/summary.ts';
import { createExec } from '../../sandbox/exec.ts';
import { UNINITIALIZED_TAINT } from '../../sandbox/kubelet/node-object.ts';
import { launchProcess } from '../../sandbox/processes.ts';
import { processAlive } from '../../sandbox/state.ts';
import { waitFor } from '../../sandbox/wait.ts';
import { createE2eSandbox, hasTaint, startE2eSandbox, type E2eSandbox } from '../helpers/sandbox.ts';

const exec = createExec();
const binary = (): Promise<string> => ensureUpstreamCcmBinary({ exec });

/** Processes whose command line mentions `text` (a sandbox's state dir): none may outlive `down`. */
function processesMentioning(text: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A running process's environment. */
function environOf(pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return Object.fromEntries(entries.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
}

const allNodes = (e: E2eSandbox): Promise<V1Node[]> => e.core.listNode().then((l) => l.items);

describe('a CCM of your own in the slot', () => {
  const running: E2eSandbox[] = [];
  afterAll(async () => {
    for (const e of running) await e.stop();
  });

  it('fails up on a command that exits at once, naming it with its log, and leaves nothing running', async () => {
    const { sandbox, stop } = await createE2eSandbox({ name: 'slot-bad', workers: 1, ccm: { kind: 'command', command: 'ccm-sandbox-no-such-ccm --v=2' } });
    await expect(sandbox.up()).rejects.toThrow(
      /^the CCM command `ccm-sandbox-no-such-ccm --v=2` exited during start-up \(exit code 127\); last lines of \S+ccm\.log:\n.*ccm-sandbox-no-such-ccm: not found/,
    );
    expect(sandbox.state).toMatchObject({ status: 'failed' });
    const simcloud = sandbox.state.simcloud!.pid!;
    await stop();
    expect(processAlive(simcloud)).toBe(false);
    expect(processesMentioning(sandbox.options.stateDir)).toEqual([]);
  });

  it('runs a command CCM as the ServiceAccount with its own kubeconfig, restarts it when it dies, and stops it on down', async () => {
    const flags =
      '--cloud-provider=simcloud --kubeconfig="$KUBECONFIG" --authentication-kubeconfig="$KUBECONFIG" --authorization-kubeconfig="$KUBECONFIG" --authentication-skip-lookup --cluster-name="$CCM_SANDBOX_CLUSTER_NAME" --cluster-cidr="$CCM_SANDBOX_CLUSTER_CIDR" --allocate-node-cidrs=false --configure-cloud-routes=true --secure-port=0 --node-monitor-period=1s';
    const command = `${await binary()} ${flags}`;
    const e = await startE2eSandbox({ name: 'slot-cmd', workers: 1, ccm: { kind: 'command', command } });
    running.push(e);
    // up() waited for every node to be initialised: the command CCM did it.
    expect((await allNodes(e)).every((n) => !hasTaint(n, UNINITIALIZED_TAINT))).toBe(true);
    const ccm = e.sandbox.state.ccm!;
    expect(ccm).toMatchObject({ kind: 'command', command, url: null, restarts: 0 });
    const kubeconfig = ccm.kubeconfig!;
    expect(statSync(kubeconfig).mode & 0o777).toBe(0o600);
    const kc = new PooledKubeConfig();
    kc.loadFromFile(kubeconfig);
    expect(kc.getCurrentUser()?.name).toBe(CCM_USER);
    const review = await kc
      .makeApiClient(AuthenticationV1Api)
      .createSelfSubjectReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    expect(review.status?.userInfo?.username).toBe(CCM_USER);
    // A CCM's RBAC, not the admin's: no Secrets.
    await expect(kc.makeApiClient(CoreV1Api).listSecretForAllNamespaces()).rejects.toMatchObject({ code: 403 });
    expect(environOf(ccm.pid!)).toMatchObject({ KUBECONFIG: kubeconfig, CCM_SANDBOX_CLUSTER_NAME: 'slot-cmd', SIMCLOUD_NETWORK: 'slot-cmd' });

    const first = ccm.pid!;
    process.kill(-first, 'SIGKILL');
    const restarted = await waitFor(
      () => {
        const s = e.sandbox.state.ccm;
        return s && s.restarts === 1 && s.pid !== first ? s : undefined;
      },
      {
        timeoutMs: 30_000,
        description: 'the supervisor to restart the CCM',
      },
    );
    expect(restarted.lastExit).toMatchObject({ signal: 'SIGKILL' });
    expect(processAlive(restarted.pid!)).toBe(true);
    await e.stop();
    expect(processesMentioning(e.sandbox.options.stateDir)).toEqual([]);
  });

  it('runs our TypeScript CCM as a command too, with the same identity', async () => {
    const command = `${process.execPath} src/main.ts --cloud-provider=simcloud --kubeconfig="$KUBECONFIG" --cluster-name="$CCM_SANDBOX_CLUSTER_NAME" --cluster-cidr="$CCM_SANDBOX_CLUSTER_CIDR" --bind-address=127.0.0.1 --secure-port=0 --node-monitor-period=1s`;
    const e = await startE2eSandbox({ name: 'slot-ts', workers: 1, ccm: { kind: 'command', command } });
    running.push(e);
    expect((await allNodes(e)).every((n) => !hasTaint(n, UNINITIALIZED_TAINT))).toBe(true);
    const ccm = e.sandbox.state.ccm!;
    expect(environOf(ccm.pid!).KUBECONFIG).toBe(ccm.kubeconfig);
    expect(ccm.kubeconfig).not.toBe(e.sandbox.state.kubeconfig);
    await e.stop();
  });

  it('leaves an empty slot: nodes stay tainted, and the printed environment and upstream flags run a CCM that initialises them', async () => {
    const e = await startE2eSandbox({ name: 'slot-none', workers: 1, ccm: { kind: 'none' } });
    running.push(e);
    const state = e.sandbox.state;
    expect(state.ccm).toMatchObject({ kind: 'none', pid: null, url: null });
    const machines = e.sandbox.cluster!.machines.length;
    await waitFor(async () => (await allNodes(e)).length === machines, { timeoutMs: 60_000, description: `${machines} nodes registered` });
    expect((await allNodes(e)).every((n) => hasTaint(n, UNINITIALIZED_TAINT))).toBe(true);

    const kubeconfig = state.ccm!.kubeconfig!;
    const summary = renderSummary(state);
    const ctx = {
      stateDir: e.sandbox.options.stateDir,
      clusterName: state.name,
      clusterCidr: state.clusterCidr!,
      simcloud: state.simcloud!,
      network: state.name,
      lbStrategy: 'lb' as const,
    };
    const env = commandCcmEnv(ctx, kubeconfig);
    for (const [k, v] of Object.entries(env)) expect(summary).toContain(`  export ${k}=${v}\n`);
    const args = upstreamArgsFor(ctx, kubeconfig, 10258);
    for (const a of args) expect(summary).toContain(`    ${a}`);

    // What a user does in a terminal: the printed environment and flags (serving off, to need no free port).
    const initialised = async (): Promise<boolean> => (await allNodes(e)).every((n) => !hasTaint(n, UNINITIALIZED_TAINT));
    const { process: own } = await launchProcess({
      exec,
      name: 'own-ccm',
      command: await binary(),
      args: args.map((a) => (a === '--secure-port=10258' ? '--secure-port=0' : a)),
      logFile: join(e.sandbox.options.stateDir, 'own-ccm.log'),
      env: { ...process.env, ...env } as Record<string, string>,
      ready: initialised,
      readyDescription: 'the nodes initialised by the CCM run by hand',
      timeoutMs: 60_000,
      intervalMs: 250,
    });
    await own.stop();
  });
});
