import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GOMOD_DIR, pinnedVersions } from '../sandbox/control-plane/binaries.ts';
import { parseReleaseGoMod, renderWrapperGoMod } from './controlplane-gomod.ts';

const release = `module k8s.io/kubernetes

go 1.26.0

godebug default=go1.26

require (
\tgithub.com/foo/bar v1.0.0
)

replace (
\tk8s.io/api => ./staging/src/k8s.io/api
\tk8s.io/client-go => ./staging/src/k8s.io/client-go
\tk8s.io/streaming => ./staging/src/k8s.io/streaming
)
`;

describe('control-plane wrapper go.mod', () => {
  it('derives the replace list, go and godebug lines from the release go.mod', () => {
    const parsed = parseReleaseGoMod(release);
    expect(parsed).toEqual({ goLine: 'go 1.26.0', godebugLine: 'godebug default=go1.26', staging: ['k8s.io/api', 'k8s.io/client-go', 'k8s.io/streaming'] });
    const rendered = renderWrapperGoMod('v1.37.1', parsed);
    expect(rendered).toContain('\tk8s.io/client-go => k8s.io/client-go v0.37.1\n');
    expect(rendered).toContain('require k8s.io/kubernetes v1.37.1\n');
  });

  it('rejects a go.mod without staging replaces', () => {
    expect(() => parseReleaseGoMod('module x\n\ngo 1.26.0\n')).toThrow(/staging/);
  });

  it('matches the committed wrapper module header, tools and replace layout', () => {
    const committed = readFileSync(join(GOMOD_DIR, 'go.mod'), 'utf8');
    const kubernetes = pinnedVersions().kubernetes;
    const staging = [...committed.matchAll(/^\t(k8s\.io\/[\w.-]+) => \1 v0\.\S+$/gm)].map((m) => m[1] as string);
    const regenerated = renderWrapperGoMod(kubernetes, { goLine: 'go 1.26.0', godebugLine: 'godebug default=go1.26', staging });
    // `go mod tidy` appends the resolved requirements after our replace block; the generated part must be verbatim.
    expect(committed.startsWith(regenerated.slice(0, regenerated.indexOf('require')))).toBe(true);
    expect(staging.length).toBeGreaterThanOrEqual(31);
  });
});
