import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stateRoot } from './state.ts';

const dir = mkdtempSync(join(tmpdir(), 'ccm-state-root-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the state root', () => {
  const checkout = join(dir, 'checkout');
  const installed = join(dir, 'project', 'node_modules', 'ccm-sandbox');
  mkdirSync(checkout, { recursive: true });
  mkdirSync(installed, { recursive: true });
  // A worktree's .git is a file, a clone's a directory: either marks a checkout.
  writeFileSync(join(checkout, '.git'), 'gitdir: /elsewhere\n');

  it('is .sandbox in a git checkout, where the npm scripts run', () => {
    expect(stateRoot({}, checkout)).toBe(join(checkout, '.sandbox'));
  });

  it("is the user's XDG state directory for an installed package, never the package's own directory", () => {
    expect(stateRoot({ XDG_STATE_HOME: join(dir, 'state') }, installed)).toBe(join(dir, 'state', 'ccm-sandbox'));
    expect(stateRoot({}, installed)).toBe(join(homedir(), '.local', 'state', 'ccm-sandbox'));
  });

  it('is CCM_SANDBOX_STATE_DIR when set, wherever the code lives', () => {
    expect(stateRoot({ CCM_SANDBOX_STATE_DIR: '/srv/sandboxes' }, checkout)).toBe('/srv/sandboxes');
    expect(stateRoot({ CCM_SANDBOX_STATE_DIR: '/srv/sandboxes' }, installed)).toBe('/srv/sandboxes');
  });
});
