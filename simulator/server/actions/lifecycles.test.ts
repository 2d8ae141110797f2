// Golden test of the stage tables: a change here changes what every CCM developer sees.
import { describe, expect, it } from 'vitest';
import { LIFECYCLES } from './lifecycles.ts';

describe('stage tables', () => {
  it('match the golden walk for every command', () => {
    const walk = Object.fromEntries(
      Object.entries(LIFECYCLES).map(([cmd, lc]) => [cmd, lc.stages.map((s) => `${s.state}(${s.delayMs}±${s.jitterMs})`).join(' → ')]),
    );
    expect(walk).toMatchInlineSnapshot(`
      {
        "add_route": "adding(200±50) → done(0±0)",
        "attach_load_balancer_to_network": "attaching(300±100) → done(0±0)",
        "attach_server_to_network": "attaching(300±100) → done(0±0)",
        "create_load_balancer": "provisioning(2000±500) → active(0±0)",
        "create_server": "initializing(1000±300) → starting(1000±300) → running(0±0)",
        "delete_load_balancer": "deleting(500±100) → deleted(0±0)",
        "delete_route": "deleting(200±50) → done(0±0)",
        "delete_server": "deleting(500±100) → deleted(0±0)",
        "detach_load_balancer_from_network": "detaching(300±100) → done(0±0)",
        "detach_server_from_network": "detaching(300±100) → done(0±0)",
        "poweroff_server": "stopping(300±100) → off(0±0)",
        "poweron_server": "starting(1000±300) → running(0±0)",
        "reboot_server": "stopping(300±100) → starting(1000±300) → running(0±0)",
        "shutdown_server": "stopping(2000±500) → off(0±0)",
        "update_load_balancer": "updating(300±100) → active(0±0)",
        "update_server": "updating(200±50) → done(0±0)",
      }
    `);
  });

  it('chain each stage to the next and end with next: null', () => {
    for (const [cmd, lc] of Object.entries(LIFECYCLES)) {
      lc.stages.forEach((s, i) => expect(s.next, cmd).toBe(lc.stages[i + 1]?.state ?? null));
    }
  });
});
