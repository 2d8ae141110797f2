// How the user runs the sandbox's commands, for the hints it prints: the npm scripts in a checkout
// (`npm run sandbox:status`), the commands of the npm package (`ccm-sandbox status`), whose bin shim says so
// in CCM_SANDBOX_PACKAGE.
export const PACKAGE_ENV = 'CCM_SANDBOX_PACKAGE';

const PACKAGE_COMMANDS = {
  'sandbox:up': 'ccm-sandbox up',
  'sandbox:down': 'ccm-sandbox down',
  'sandbox:status': 'ccm-sandbox status',
  'sandbox:logs': 'ccm-sandbox logs',
  conformance: 'ccm-sandbox conformance',
  demo: 'ccm-sandbox demo',
  simcloud: 'simcloud',
} as const;
export type Script = keyof typeof PACKAGE_COMMANDS;

/** `npm run sandbox:logs -- ccm` in a checkout, `ccm-sandbox logs ccm` from the package. */
export function commandHint(script: Script, args = '', env: NodeJS.ProcessEnv = process.env): string {
  const rest = args.trim();
  if (env[PACKAGE_ENV] === '1') return rest ? `${PACKAGE_COMMANDS[script]} ${rest}` : PACKAGE_COMMANDS[script];
  return rest ? `npm run ${script} -- ${rest}` : `npm run ${script}`;
}
