// The persona contract's typed answers: every route of every registered persona declares the schema of what it
// answers (tests check each answer against it, and the parity pages list its fields).
import { describe, expect, it } from 'vitest';
import { PERSONAS } from './registry.ts';

describe('persona response schemas', () => {
  it.each(PERSONAS.map((p) => [p.name, p] as const))('are declared by every %s route', (_name, persona) => {
    expect(persona.routes.filter((r) => r.response === undefined).map((r) => `${r.method.toUpperCase()} ${r.path}`)).toEqual([]);
  });
});
