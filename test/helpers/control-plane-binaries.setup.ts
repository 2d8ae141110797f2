// Global setup of the levels that need a real control plane: finds or builds the Kubernetes binaries
// once, before any worker starts (a cold build prints progress for several minutes), and gives the run
// its own temp directory so teardown can prove nothing was left behind.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createExec } from '../../sandbox/exec.ts';
import { ensureBinaries } from '../../sandbox/control-plane/binaries.ts';

let ownsTmp = false;

export async function setup(): Promise<void> {
  const binaries = await ensureBinaries({ exec: createExec(), onProgress: (m) => console.log(`[control plane] ${m}`) });
  process.env.TEST_ASSET_ETCD = binaries.etcd;
  process.env.TEST_ASSET_KUBE_APISERVER = binaries['kube-apiserver'];
  process.env.TEST_ASSET_KUBE_CONTROLLER_MANAGER = binaries['kube-controller-manager'];
  process.env.TEST_ASSET_KUBE_SCHEDULER = binaries['kube-scheduler'];
  if (!process.env.CCM_SANDBOX_TEST_TMP) {
    const dir = mkdtempSync(join(tmpdir(), 'ccm-sandbox-test-run-'));
    process.env.CCM_SANDBOX_TEST_TMP = dir;
    process.env.TMPDIR = dir;
    ownsTmp = true;
  }
}

export async function teardown(): Promise<void> {
  const dir = process.env.CCM_SANDBOX_TEST_TMP;
  if (!ownsTmp || !dir) return;
  // Workers stop their control planes when they exit; their reapers finish the job shortly after.
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && readdirSync(dir).length > 0) await sleep(200);
  const left = readdirSync(dir);
  rmSync(dir, { recursive: true, force: true });
  if (left.length > 0) console.warn(`[control plane] removed leftovers of the test run: ${left.join(', ')}`);
}
