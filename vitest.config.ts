// One `vitest run` runs every level; each level is a project so it can be run alone
// (`npx vitest run --project integration`). Levels that need the real control plane share a global
// setup that finds or builds the Kubernetes binaries once before any worker starts.
import { defineConfig } from 'vitest/config';

// isolate: false lets the files of one worker share its control plane (test/helpers/control-plane.ts).
const slow = { testTimeout: 120_000, hookTimeout: 300_000, isolate: false };

// Most of the slow suites wait on the cluster (grace periods, lease expiries, podgc) rather than compute, so
// five files run at a time even on a 2-core machine, the e2e suites' included: each file's sandbox has its
// own state dir, control plane and loopback address plan, and no test asserts a duration. A whole `.ci/run`
// used 26 CPU-minutes (user + system, 2026-11-29), vitest about 24 of them, so on 2 cores its floor is about
// 12 minutes; on a quiet machine four files at a time took 884 s of vitest, five 779 s. VITEST_MAX_WORKERS
// overrides it (1 runs every file in turn).
const maxWorkers = Number(process.env.VITEST_MAX_WORKERS ?? 5);

export default defineConfig({
  test: {
    maxWorkers,
    // Every simcloud a test starts (in process, as a process, or inside a sandbox) checks each answer against its
    // route's response schema and fails the request, naming the field, when it does not match
    // (simulator/server/response-check.ts). Projects inherit it.
    env: { SIMCLOUD_VALIDATE_RESPONSES: '1' },
    reporters: process.env.CI ? ['default'] : ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['lib/**/*.test.ts', 'src/**/*.test.ts', 'simulator/**/*.test.ts', 'sandbox/**/*.test.ts', 'scripts/**/*.test.ts'],
        },
      },
      {
        extends: true,
        // gofmt, go vet and go test of the Go module (go/); compiling the test binaries dominates.
        test: { name: 'go', include: ['test/go/**/*.test.ts'], testTimeout: 900_000 },
      },
      {
        extends: true,
        test: { name: 'simulator', include: ['test/simulator/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 },
      },
      {
        extends: true,
        test: { name: 'sandbox', include: ['test/sandbox/**/*.test.ts'], testTimeout: 60_000 },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/helpers/control-plane-binaries.setup.ts'],
          ...slow,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/helpers/control-plane-binaries.setup.ts', 'test/helpers/upstream-ccm-binary.setup.ts'],
          ...slow,
        },
      },
      {
        extends: true,
        // The same conformance run on the upstream Go CCM (k8s.io/cloud-provider's controllers) in the sandbox's CCM slot.
        test: {
          name: 'e2e-upstream',
          include: ['test/e2e/conformance.test.ts', 'test/e2e/kube-proxy.test.ts', 'test/e2e/conformance-continuity.test.ts'],
          env: { SANDBOX_CCM: 'upstream' },
          globalSetup: ['test/helpers/control-plane-binaries.setup.ts', 'test/helpers/upstream-ccm-binary.setup.ts'],
          ...slow,
        },
      },
      {
        extends: true,
        test: {
          // One scenario on two fresh sandboxes, once with our CCM and once with upstream's, compared leaf by
          // leaf against the deviations table of deploy/README.md.
          name: 'differential',
          include: ['test/differential/**/*.test.ts'],
          globalSetup: ['test/helpers/control-plane-binaries.setup.ts'],
          testTimeout: 900_000,
          hookTimeout: 300_000,
          isolate: false,
        },
      },
      {
        extends: true,
        // The conformance run on the Hetzner persona: cluster made through /hcloud/v1, the upstream Go CCM's hcloud provider.
        test: {
          name: 'e2e-hcloud',
          include: ['test/e2e/conformance.test.ts', 'test/e2e/conformance-continuity.test.ts'],
          env: { SANDBOX_CCM: 'upstream', SANDBOX_CLOUD: 'hcloud' },
          globalSetup: ['test/helpers/control-plane-binaries.setup.ts'],
          ...slow,
        },
      },
      {
        extends: true,
        // The conformance run on the Linode persona: instances made through /v4, the upstream Go CCM's linode provider.
        test: {
          name: 'e2e-linode',
          include: ['test/e2e/conformance.test.ts'],
          env: { SANDBOX_CCM: 'upstream', SANDBOX_CLOUD: 'linode' },
          globalSetup: ['test/helpers/control-plane-binaries.setup.ts'],
          ...slow,
        },
      },
      {
        extends: true,
        // The conformance run on the DigitalOcean persona: droplets made through /v2, the upstream Go CCM's digitalocean provider.
        test: {
          name: 'e2e-digitalocean',
          include: ['test/e2e/conformance.test.ts'],
          env: { SANDBOX_CCM: 'upstream', SANDBOX_CLOUD: 'digitalocean' },
          globalSetup: ['test/helpers/control-plane-binaries.setup.ts'],
          ...slow,
        },
      },
      {
        extends: true,
        // The conformance run on the phoenixNAP persona: servers made through /pnap/bmc/v1, the upstream Go CCM's phoenixnap provider.
        test: {
          name: 'e2e-phoenixnap',
          include: ['test/e2e/conformance.test.ts'],
          env: { SANDBOX_CCM: 'upstream', SANDBOX_CLOUD: 'phoenixnap' },
          globalSetup: ['test/helpers/control-plane-binaries.setup.ts'],
          ...slow,
        },
      },
      {
        extends: true,
        // The conformance run on the Brightbox persona: servers made through /brightbox/1.0, the upstream Go CCM's brightbox provider.
        test: {
          name: 'e2e-brightbox',
          include: ['test/e2e/conformance.test.ts'],
          env: { SANDBOX_CCM: 'upstream', SANDBOX_CLOUD: 'brightbox' },
          globalSetup: ['test/helpers/control-plane-binaries.setup.ts'],
          ...slow,
        },
      },
      {
        extends: true,
        test: {
          name: 'bench-smoke',
          include: ['test/bench/**/*.test.ts'],
          globalSetup: ['test/helpers/control-plane-binaries.setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
      {
        extends: true,
        test: {
          // DNS rebinding, cross-origin requests from a real browser, tokens, hostile bodies, slow clients, and
          // a whole sandbox run scanned for leaked secrets.
          name: 'security',
          include: ['test/security/**/*.test.ts'],
          globalSetup: ['test/helpers/control-plane-binaries.setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          globalSetup: ['test/helpers/control-plane-binaries.setup.ts'],
          ...slow,
        },
      },
    ],
  },
});
