/** The logger type used across the CCM (a pino logger; `src/telemetry/logger.ts` builds the root). */
export type { Logger } from 'pino';
