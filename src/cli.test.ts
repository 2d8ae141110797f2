import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

describe('simcloud-ccm command line', () => {
  it('exits 2 with one line naming the registered providers when --cloud-provider names none of them', async () => {
    // Nothing listens on port 9 and the kubeconfig does not exist: the provider name is refused before either is used.
    const run = await execa(process.execPath, [MAIN, '--cloud-provider=aws', '--kubeconfig=/nonexistent/kubeconfig'], {
      reject: false,
      env: { SIMCLOUD_ENDPOINT: 'http://127.0.0.1:9', SIMCLOUD_TOKEN: 'sc-cli-test' },
    });
    expect(run.exitCode).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual(['simcloud-ccm: --cloud-provider: unknown cloud provider "aws" (registered: simcloud)']);
  }, 30_000);
});
