/**
 * The registration list: every persona simcloud speaks besides its own /v1, in mount order. The entry point
 * that builds the app (simulator/cli/serve.ts, the test helpers) passes it to startSimcloud / createApp; the
 * server imports no persona. A new persona is its folder and one line here (docs/personas.md).
 */
import type { Persona } from '../server/persona.ts';
import { brightbox } from './brightbox/persona.ts';
import { digitalocean } from './digitalocean/persona.ts';
import { hcloud } from './hcloud/persona.ts';
import { linode } from './linode/persona.ts';
import { phoenixnap } from './phoenixnap/persona.ts';

export const PERSONAS: readonly Persona[] = [hcloud, linode, digitalocean, phoenixnap, brightbox];
