import { describe, expect, it } from 'vitest';
import { commandHint, PACKAGE_ENV } from './hint.ts';

describe('command hints', () => {
  it('name the npm scripts in a checkout, arguments after --', () => {
    expect(commandHint('sandbox:status', '', {})).toBe('npm run sandbox:status');
    expect(commandHint('sandbox:logs', 'ccm', {})).toBe('npm run sandbox:logs -- ccm');
  });

  it("name the package's commands when its bin started the sandbox", () => {
    const env = { [PACKAGE_ENV]: '1' };
    expect(commandHint('sandbox:down', '--name x', env)).toBe('ccm-sandbox down --name x');
    expect(commandHint('conformance', '--cloud hcloud', env)).toBe('ccm-sandbox conformance --cloud hcloud');
    expect(commandHint('simcloud', 'server list', env)).toBe('simcloud server list');
  });
});
