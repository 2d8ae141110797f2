/**
 * A bad command line (any of our CLIs: simcloud, simcloud-ccm, ccm-sandbox, the bench): the CLI prints the
 * message as one line saying what to fix and exits 2.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
