/**
 * What every persona's response schemas share. Each persona's folder holds zod schemas of the objects its real
 * API returns (field names and nullability from that API's documentation and SDK: a field the API always fills
 * is not nullable here), its routes declare them as their `response`, its views return their `z.infer` types,
 * and the parity tables list their fields (parity-fields.ts). In tests every answer is checked against them
 * (simulator/server/response-check.ts).
 */
import { z } from 'zod';

/** The answer of a 204 route: no body. */
export const NoContent = z.undefined();

/** An integer, as the APIs' ids and counters are. */
export const Int = z.number().int();
