import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createSimLogger } from './logger.ts';

describe('simcloud logger', () => {
  it('censors token values in structured fields', () => {
    let out = '';
    const sink = new Writable({ write: (chunk: Buffer, _enc, done) => ((out += chunk.toString()), done()) });
    const log = createSimLogger('info', sink);
    log.info(
      {
        token: 'tok-1',
        rec: { secret: 'sec-2' },
        config: { adminToken: 'adm-3', bootstrap: { token: 'tok-4' } },
        req: { headers: { authorization: 'Bearer tok-5' } },
      },
      'x',
    );
    for (const v of ['tok-1', 'sec-2', 'adm-3', 'tok-4', 'tok-5']) expect(out).not.toContain(v);
    expect(out).toContain('[REDACTED]');
  });
});
