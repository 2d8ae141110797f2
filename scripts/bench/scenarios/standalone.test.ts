import { describe, expect, it } from 'vitest';
import { S15Details, s15Figures, type S15Run } from './standalone.ts';

const run = (command: number, steps: Record<string, number>, phases: Record<string, number>): S15Run => ({
  command,
  commandDaemon: command - 0.7,
  total: command - 0.5,
  controlPlane: 3,
  steps,
  phases,
});

describe('S15', () => {
  const runs = [
    run(4.2, { simcloud: 0.5, 'cluster (local)': 3.1 }, { etcd: 0.4, 'machines created': 2.3 }),
    run(4.8, { simcloud: 0.7, 'cluster (local)': 3.3 }, { etcd: 0.6, 'kubelets registered': 0.1 }),
    run(4.4, { simcloud: 0.6, 'cluster (local)': 3.0 }, { etcd: 0.5, 'machines created': 2.4 }),
  ];

  it('judges the command by its median against 5 s, and gives a figure per step and phase with no target', () => {
    const figures = s15Figures(runs);
    const command = figures.find((f) => f.name === 'npm run sandbox:up -> summary (warm)');
    expect(command).toMatchObject({ target: 5, value: 4.4, samples: [4.2, 4.8, 4.4] });
    expect(figures.map((f) => f.name).filter((n) => /^(step|phase): /.test(n))).toEqual([
      'step: simcloud',
      'step: cluster (local)',
      'phase: etcd',
      'phase: machines created',
      'phase: kubelets registered',
    ]);
    // A phase a run did not have is left out of its samples, not counted as zero.
    expect(figures.find((f) => f.name === 'phase: machines created')).toMatchObject({ target: null, samples: [2.3, 2.4] });
  });

  it("checks the JSON details' shape", () => {
    expect(S15Details.parse({ runs })).toEqual({ runs });
    expect(S15Details.safeParse({ runs: [{ ...runs[0], command: undefined }] }).success).toBe(false);
  });
});
