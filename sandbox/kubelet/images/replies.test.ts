import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import {
  answerHttp,
  answerMessage,
  ImageReplies,
  ImageTableError,
  imageName,
  loadImageTable,
  readImageTable,
  BUILTIN_IMAGE_TABLE,
  type PodBehaviour,
} from './replies.ts';
import { REPLIES_ANNOTATION, STAND_IN_REPLIES } from './schema.ts';

const NOW = new Date('2026-01-02T03:04:05.000Z');
const CLIENT = { ip: '127.0.0.9', port: 40000 };

function pod(container: Partial<V1Container>, annotations?: Record<string, string>): V1Pod {
  return {
    metadata: { name: 'web-5d8f-abcde', namespace: 'shop', uid: 'u-1', ...(annotations ? { annotations } : {}) },
    spec: { nodeName: 'sbx-worker-1', containers: [{ name: 'main', ...container }] },
    status: { podIP: '10.244.1.7', hostIP: '127.10.0.3' },
  };
}

const table = loadImageTable();
const replies = new ImageReplies(table);
const behaviourOf = (p: V1Pod, port = 8080): PodBehaviour => {
  const b = replies.of(p, port, '10.244.9.9');
  if (!b) throw new Error('no behaviour');
  return b;
};
const get = (b: PodBehaviour, uri: string) =>
  answerHttp(b, { method: 'GET', uri, headers: { host: 'lb.test', 'user-agent': 'curl/8' }, client: CLIENT, now: NOW });

describe('image table', () => {
  it('loads the built-in table through its schema', () => {
    expect(readImageTable(BUILTIN_IMAGE_TABLE).images.map((e) => e.name)).toContain('appscode test-server');
  });

  it('names images without registry default, library/, tag or digest', () => {
    expect(imageName('docker.io/library/nginx:1.27')).toBe('nginx');
    expect(imageName('nginx@sha256:abc')).toBe('nginx');
    expect(imageName('registry.k8s.io/e2e-test-images/agnhost:2.52')).toBe('registry.k8s.io/e2e-test-images/agnhost');
    expect(imageName('localhost:5000/app')).toBe('localhost:5000/app');
  });

  it('answers appscode/test-server JSON with POD_NAME from the downward API', () => {
    const b = behaviourOf(pod({ image: 'appscode/test-server:2.3', env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }] }));
    const reply = get(b, '/some/path?x=1');
    expect(reply?.status).toBe(200);
    expect(JSON.parse(reply?.body ?? '')).toEqual({
      type: 'http',
      host: 'lb.test',
      serverPort: ':8080',
      path: '/some/path',
      method: 'GET',
      headers: { host: 'lb.test', 'user-agent': 'curl/8' },
      podName: 'web-5d8f-abcde',
    });
    expect(answerMessage(b, 'udp', { payload: 'hi', client: CLIENT, now: NOW })).toBe('{"type":"udp","serverPort":":8080","podName":"web-5d8f-abcde"}');
  });

  it('answers agnhost netexec by its subcommand: /hostname, /echo, /clientip and UDP commands', () => {
    const b = behaviourOf(pod({ image: 'registry.k8s.io/e2e-test-images/agnhost:2.52', args: ['netexec', '--http-port=8080', '--udp-port=8081'] }));
    expect(b.source).toBe('agnhost netexec');
    expect(get(b, '/hostname')?.body).toBe('web-5d8f-abcde');
    expect(get(b, '/echo?msg=hello%20there')?.body).toBe('hello there');
    expect(get(b, '/clientip')?.body).toBe('127.0.0.9:40000');
    expect(get(b, '/nope')?.status).toBe(404);
    expect(answerMessage(b, 'udp', { payload: 'echo ping', client: CLIENT, now: NOW })).toBe('ping');
    expect(answerMessage(b, 'udp', { payload: 'hostname\n', client: CLIENT, now: NOW })).toBe('web-5d8f-abcde');
    expect(answerMessage(b, 'udp', { payload: 'other', client: CLIENT, now: NOW })).toBeNull();
    expect(replies.of(pod({ image: 'registry.k8s.io/e2e-test-images/agnhost:2.52', args: ['serve-hostname'] }), 9376, '')?.source).toBe(
      'agnhost serve-hostname',
    );
  });

  it('answers hashicorp/http-echo with its -text, in either flag form', () => {
    expect(get(behaviourOf(pod({ image: 'hashicorp/http-echo', args: ['-text=hello world'] })), '/')?.body).toBe('hello world\n');
    expect(get(behaviourOf(pod({ image: 'hashicorp/http-echo:1.0', args: ['-text', 'bar'] })), '/x')?.body).toBe('bar\n');
  });

  it('answers nginx with its welcome page on / and 404 elsewhere', () => {
    const b = behaviourOf(pod({ image: 'nginx:1.27' }));
    expect(get(b, '/')?.body).toContain('Welcome to nginx!');
    expect(get(b, '/')?.headers.server).toBe('nginx');
    expect(get(b, '/missing')?.status).toBe(404);
    expect(answerMessage(b, 'tcp', { payload: 'hello', client: CLIENT, now: NOW })).toBeNull();
  });

  it('serves the container whose port matches, with literal env and $(VAR) expansion', () => {
    const p = pod({ image: 'busybox', env: [{ name: 'A', value: 'x' }] });
    p.spec!.containers.push({ name: 'echo', image: 'hashicorp/http-echo', args: ['-text=$(GREETING)'], ports: [{ containerPort: 5678 }] });
    expect(replies.of(p, 8080, '')).toBeNull();
    expect(get(behaviourOf(p, 5678), '/')?.body).toBe('$(GREETING)\n');
  });

  it('keeps no behaviour for an image not in the table', () => {
    expect(replies.of(pod({ image: 'example.com/my/app:1' }), 8080, '')).toBeNull();
  });

  it('takes a pod annotation over the table, and reports a bad one and falls back', () => {
    const override = JSON.stringify({
      http: [{ path: '/*', reply: { status: 201, json: { who: '{{pod.name}}', ip: '{{pod.ip}}', env: '{{env.HOSTNAME}}' } } }],
    });
    const b = behaviourOf(pod({ image: 'nginx' }, { [REPLIES_ANNOTATION]: override }));
    expect(get(b, '/')).toEqual({
      status: 201,
      headers: { 'content-type': 'application/json' },
      body: '{"who":"web-5d8f-abcde","ip":"10.244.1.7","env":"web-5d8f-abcde"}\n',
    });
    const errors: string[] = [];
    const bad = new ImageReplies(table, (m) => errors.push(m)).of(pod({ image: 'nginx' }, { [REPLIES_ANNOTATION]: '{"http":[{"path":"x"}]}' }), 80, '');
    expect(bad?.source).toBe('nginx');
    expect(replies.of(pod({ image: 'nginx' }, { [REPLIES_ANNOTATION]: STAND_IN_REPLIES }), 80, '')).toBeNull();
    expect(errors).toEqual([expect.stringMatching(/^pod shop\/web-5d8f-abcde: annotation ccm-sandbox.dev\/replies ignored: \[http\.0\.path\]/)]);
  });

  describe('a user file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'image-table-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('comes ahead of the built-in table', () => {
      const file = join(dir, 'mine.yaml');
      writeFileSync(file, 'images:\n  - name: my nginx\n    images: [nginx]\n    tcp: [{ reply: "mine {{pod.namespace}}" }]\n');
      const b = new ImageReplies(loadImageTable(file)).of(pod({ image: 'nginx' }), 80, '');
      expect(b?.source).toBe('my nginx');
      expect(answerMessage(b!, 'tcp', { payload: '', client: CLIENT, now: NOW })).toBe('mine shop');
    });

    it('is refused with the field that is wrong', () => {
      const file = join(dir, 'bad.yaml');
      writeFileSync(file, 'images:\n  - name: x\n    images: []\n');
      expect(() => loadImageTable(file)).toThrow(ImageTableError);
      expect(() => loadImageTable(file)).toThrow(/bad\.yaml: \[images\.0\.images\]/);
    });
  });
});
