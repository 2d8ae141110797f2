import { describe, expect, it } from 'vitest';
import { UsageError } from '../../lib/usage-error.ts';
import { ConfigError, loadConfig, parseFlags, readCloudConfig, redactedConfig, usage } from './load.ts';
import { parseDuration } from './fields.ts';
import { CloudConfigFileSchema } from './schema.ts';
import { settings, type SettingDefinition } from './settings.ts';

const env = { SIMCLOUD_ENDPOINT: 'http://127.0.0.1:9000', SIMCLOUD_TOKEN: 'secret' };
const files =
  (content: Record<string, string>) =>
  (p: string): string => {
    const c = content[p];
    if (c === undefined) throw new Error(`ENOENT: ${p}`);
    return c;
  };

describe('parseDuration', () => {
  it.each([
    ['15s', 15_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
    ['1.5s', 1500],
    ['10', 10_000],
  ])('%s = %d ms', (raw, ms) => expect(parseDuration(raw)).toBe(ms));
  it.each(['', 's', '5x', '-1s', '5 s'])('rejects %j', (raw) => expect(parseDuration(raw)).toBeUndefined());
});

describe('parseFlags', () => {
  it('accepts --a=b, --a b, -a b and bare bools like Go flags', () => {
    const { values } = parseFlags(['--cluster-name=c1', '--secure-port', '0', '-v', '4', '--leader-elect', '--configure-cloud-routes=false']);
    expect(values).toEqual({ clusterName: 'c1', securePort: '0', verbosity: '4', leaderElect: 'true', configureCloudRoutes: 'false' });
  });
  it('rejects unknown flags, positionals and missing values with a UsageError', () => {
    expect(() => parseFlags(['--nope'])).toThrow(UsageError);
    expect(() => parseFlags(['extra'])).toThrow(/unexpected argument "extra"/);
    expect(() => parseFlags(['--cluster-name'])).toThrow(/needs a value/);
  });
  it('reports --help', () => expect(parseFlags(['--help']).help).toBe(true));
});

describe('loadConfig', () => {
  it('applies the upstream defaults', () => {
    const c = loadConfig({ argv: [], env });
    expect(c).toMatchObject({
      cloudProvider: 'simcloud',
      clusterName: 'kubernetes',
      controllers: ['*'],
      leaderElect: true,
      leaderElectLeaseDuration: 15_000,
      leaderElectRenewDeadline: 10_000,
      leaderElectRetryPeriod: 2000,
      leaderElectResourceName: 'cloud-controller-manager',
      leaderElectResourceNamespace: 'kube-system',
      concurrentServiceSyncs: 1,
      concurrentNodeSyncs: 1,
      nodeMonitorPeriod: 5000,
      nodeStatusUpdateFrequency: 300_000,
      routeReconciliationPeriod: 10_000,
      configureCloudRoutes: true,
      clusterCIDR: '',
      kubeApiQps: 20,
      kubeApiBurst: 30,
      bindAddress: '0.0.0.0',
      securePort: 10258,
      verbosity: 0,
      loadBalancerClass: '',
      loadBalancerStrategy: 'lb',
      loadBalancersEnabled: true,
      routesEnabled: true,
    });
  });

  it('merges flag > env > file > default per field', () => {
    const cloudConfig = [
      'endpoint: http://file:1',
      'token: from-file',
      'clusterName: from-file',
      'loadBalancer:',
      '  strategy: ip-block',
      'routes:',
      '  network: net-file',
    ].join('\n');
    const c = loadConfig({
      argv: ['--cloud-config', '/cc.yaml', '--cluster-name', 'from-flag'],
      env: { SIMCLOUD_TOKEN: 'from-env', CCM_CLUSTER_NAME: 'from-env' },
      readFile: files({ '/cc.yaml': cloudConfig }),
    });
    expect(c.clusterName).toBe('from-flag');
    expect(c.token).toBe('from-env');
    expect(c.endpoint).toBe('http://file:1');
    expect(c.loadBalancerStrategy).toBe('ip-block');
    expect(c.network).toBe('net-file');
  });

  it('reads JSON cloud-config files and typed values', () => {
    const c = loadConfig({
      argv: ['--cloud-config=/cc.json'],
      env: {},
      readFile: files({ '/cc.json': JSON.stringify({ endpoint: 'https://x:1', token: 't', loadBalancer: { enabled: false }, requestTimeout: '2s' }) }),
    });
    expect(c.loadBalancersEnabled).toBe(false);
    expect(c.requestTimeout).toBe(2000);
  });

  it('names every bad field with its source at once', () => {
    let error: unknown;
    try {
      loadConfig({
        argv: ['--secure-port=99999', '--leader-elect-lease-duration=soon', '--cloud-provider='],
        env: { SIMCLOUD_ENDPOINT: 'ftp://x', SIMCLOUD_LOAD_BALANCER_STRATEGY: 'magic' },
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toContain('--secure-port:');
    expect(problems).toContain('--leader-elect-lease-duration: must be a duration');
    expect(problems).toContain('--cloud-provider: cannot be empty');
    expect(problems).toContain('SIMCLOUD_ENDPOINT: must be an http(s) URL');
    expect(problems).toContain('SIMCLOUD_LOAD_BALANCER_STRATEGY: must be one of: lb, ip-block');
    expect(problems).toMatch(/SIMCLOUD_TOKEN \/ cloud-config token: is required/);
  });

  it('rejects a token with a line break, naming where it came from', () => {
    expect(() => loadConfig({ argv: [], env: { ...env, SIMCLOUD_TOKEN: 'secret\nsecret' } })).toThrow(/SIMCLOUD_TOKEN: must be the token alone/);
  });

  it('rejects a renew deadline not shorter than the lease', () => {
    expect(() => loadConfig({ argv: ['--leader-elect-renew-deadline=20s'], env })).toThrow(
      /--leader-elect-renew-deadline: must be less than the lease duration/,
    );
  });

  it('rejects unknown and malformed cloud-config files', () => {
    expect(() => readCloudConfig('/a', files({ '/a': 'loadBalancer:\n  strategi: lb\n' }))).toThrow(/cloud-config \/a loadBalancer/);
    expect(() => readCloudConfig('/b', files({ '/b': 'a: [' }))).toThrow(ConfigError);
  });

  it('redacts the token', () => {
    expect(redactedConfig(loadConfig({ argv: [], env })).token).toBe('<redacted>');
  });

  it('lists every flag and variable of the registry in --help', () => {
    for (const def of Object.values<SettingDefinition>(settings)) {
      if (def.flag) expect(usage()).toContain(`--${def.flag}`);
      if (def.env) expect(usage()).toContain(def.env);
    }
  });
});

describe('the settings registry', () => {
  it('gives every setting a default its own schema accepts (the API endpoint and token have none)', () => {
    const failing = Object.entries(settings)
      .filter(([, def]) => !def.schema.safeParse(def.default).success)
      .map(([key]) => key);
    expect(failing).toEqual(['endpoint', 'token']);
  });

  it('is the schema: every setting is a config field and every config field a setting', () => {
    const config = loadConfig({ argv: [], env });
    expect(Object.keys(config).sort()).toEqual(Object.keys(settings).sort());
  });

  it('accepts every cloud-config key of the registry and nothing else', () => {
    const doc = {
      clusterName: 'c',
      endpoint: 'http://127.0.0.1:1',
      token: 't',
      requestTimeout: '5s',
      routes: { enabled: false, network: 'n' },
      loadBalancer: { enabled: true, strategy: 'ip-block' },
    };
    const fileKeys = Object.values<SettingDefinition>(settings).flatMap((d) => (d.file ? [d.file] : []));
    expect(fileKeys.sort()).toEqual([
      'clusterName',
      'endpoint',
      'loadBalancer.enabled',
      'loadBalancer.strategy',
      'requestTimeout',
      'routes.enabled',
      'routes.network',
      'token',
    ]);
    expect(CloudConfigFileSchema.safeParse(doc).success).toBe(true);
    expect(CloudConfigFileSchema.safeParse({ ...doc, routes: { networks: 'n' } }).success).toBe(false);
  });
});
