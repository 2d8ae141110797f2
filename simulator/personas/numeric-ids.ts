/**
 * Numeric ids for personas whose APIs use integers (Hetzner, Linode, DigitalOcean). Every simcloud id is a
 * type prefix and a number from the store's sequence (`srv-00000042`, see newIds), so that number is already
 * one stable integer per resource, unique within its type (a resource and the action creating it may share
 * it, as ids of different types may in those APIs) and persisted with the store: a persona shows it and
 * turns it back into the simcloud id, and no persona keeps ids of its own.
 */
import { z } from 'zod';
import { sequentialId } from '../server/context.ts';

const SEQUENTIAL = /^[a-z]{2,5}-(\d{1,15})$/;

/** The integer behind a simcloud id, or null for an id not made by the store's sequence. */
export function numericId(id: string): number | null {
  const m = SEQUENTIAL.exec(id);
  return m === null ? null : Number(m[1]);
}

/** Like numericId, for ids the store made (every stored resource's). */
export function numericIdOf(id: string): number {
  const n = numericId(id);
  if (n === null) throw new Error(`${id} is not a sequential simcloud id`);
  return n;
}

/** The simcloud id of number `n` for a type prefix (`srv`, `lb`, `net`, `act`). */
export const simcloudId = sequentialId;

/**
 * A message with simcloud ids (`server srv-00000042 not found`) in numeric form (`server 42 not found`). Only
 * the store's ids are converted: their number has at least 8 digits (sequentialId pads to 8), so names that
 * merely look alike (`sim-1`, `sc-small`, `debian-13`) keep their spelling.
 */
export const numericMessage = (message: string): string => message.replace(/\b[a-z]{2,5}-(\d{8,15})\b/g, (_m, digits: string) => String(Number(digits)));

/** A path or body id: a positive integer (path parameters arrive as strings). */
export const NumericId = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
/**
 * An id in a path: digits only. (NumericId's coercion would also take `0x10`, `1e1` or `10.0` for 16 and 10, so
 * one resource would answer to many spellings.)
 */
export const NumericPathId = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a numeric id')
  .transform(Number);
export const NumericIdParams = z.object({ id: NumericPathId });
