// Which ccm-sandbox this is: the package's version (package.json) and the Kubernetes and etcd releases its
// control plane is built from (the pinned wrapper module). `ccm-sandbox --version` prints them and every
// conformance report carries them, so a CCM author can say which sandbox their CCM passed.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { pinnedVersions } from './control-plane/binaries.ts';

const PackageJson = z.object({ version: z.string() });

export const SANDBOX_VERSION: string = PackageJson.parse(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))).version;

/** `ccm-sandbox 0.1.0 (Kubernetes v1.37.1, etcd v3.7.0)`. */
export function versionLine(): string {
  const pinned = pinnedVersions();
  return `ccm-sandbox ${SANDBOX_VERSION} (Kubernetes ${pinned.kubernetes}, etcd ${pinned.etcd})`;
}
