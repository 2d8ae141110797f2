import { describe, expect, it } from 'vitest';
import { createExec, formatCommand, formatRecords, shellQuote } from './exec.ts';

describe('exec', () => {
  it('records commands in dry-run mode without running them and answers from the responder', async () => {
    const exec = createExec({ dryRun: true, responder: (r) => (r.command === 'docker' ? { stdout: '172.18.0.2' } : undefined) });
    const inspect = await exec.run('docker', ['inspect', '-f', '{{.NetworkSettings.IPAddress}}', 'kind-control-plane']);
    expect(inspect.stdout).toBe('172.18.0.2');
    const proc = exec.spawn('etcd', ['--data-dir=/x y'], { name: 'etcd', logFile: '/dev/null' });
    expect(proc.isRunning()).toBe(true);
    await proc.stop();
    expect(proc.isRunning()).toBe(false);
    expect(formatRecords(exec.records)).toBe("$ docker inspect -f '{{.NetworkSettings.IPAddress}}' kind-control-plane\n& etcd '--data-dir=/x y'");
  });

  it('quotes arguments only when the shell would need it', () => {
    expect(shellQuote('--flag=value')).toBe('--flag=value');
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(formatCommand('echo', ['a b', ''])).toBe("echo 'a b' ''");
  });

  it('runs real commands, reports failures with the exit code and stderr', async () => {
    const exec = createExec();
    expect((await exec.run('sh', ['-c', 'echo hi'])).stdout).toBe('hi');
    await expect(exec.run('sh', ['-c', 'echo boom >&2; exit 3'])).rejects.toThrow(/exited with code 3: boom/);
    expect((await exec.run('sh', ['-c', 'exit 4'], { allowFailure: true })).exitCode).toBe(4);
  });
});
