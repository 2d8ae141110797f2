import { describe, expect, it } from 'vitest';
import { cloudOf } from '../cloud/registry.ts';
import { Verdict } from './report.ts';
import { declaredNotOffered } from './run.ts';

describe('capabilities a cloud gives a CCM nothing to offer with', () => {
  it("reports phoenixNAP's own CCM's lb-annotations and routes not offered, with the descriptor's reason", () => {
    const pnap = cloudOf('phoenixnap');
    for (const c of ['lb-annotations', 'routes'] as const) {
      const r = declaredNotOffered(pnap, 'command', c);
      expect(r?.verdict).toBe(Verdict.notOffered);
      expect(r?.message).toBe(pnap.conformance.notOffered?.[c]?.reason);
    }
    expect(declaredNotOffered(pnap, 'command', 'lb-basic')).toBeUndefined();
  });

  it('checks lb-annotations of our provider on phoenixNAP: it offers simcloud annotations', () => {
    expect(declaredNotOffered(cloudOf('phoenixnap'), 'upstream', 'lb-annotations')).toBeUndefined();
  });

  it('takes routes as not offered by our Go CCM where its provider has none, and checks them where it has', () => {
    expect(declaredNotOffered(cloudOf('linode'), 'upstream', 'routes')?.message).toBe("our Go CCM's linode provider has no Routes");
    expect(declaredNotOffered(cloudOf('hcloud'), 'upstream', 'routes')).toBeUndefined();
    expect(declaredNotOffered(cloudOf('linode'), 'command', 'routes')).toBeUndefined();
  });
});
