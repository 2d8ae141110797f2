import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { FakeClock } from './clock.ts';
import { KubeEventRecorder, MaxQueuedEvents } from './event-recorder.ts';
import { EventSource, EventType, objectReference } from './events.ts';
import { MemoryKube } from './memory-kube.ts';

const logger = pino({ level: 'silent' });
const svc = objectReference('Service', { metadata: { name: 'web', namespace: 'default', uid: 'u1' } });

function recorder(): { kube: MemoryKube; rec: KubeEventRecorder; clock: FakeClock } {
  const kube = new MemoryKube();
  const clock = new FakeClock();
  return { kube, clock, rec: new KubeEventRecorder({ kube, component: EventSource.Service, host: 'host-a', logger, clock }) };
}

describe('KubeEventRecorder', () => {
  it('creates an Event with the upstream source component', async () => {
    const { kube, rec } = recorder();
    rec.event(svc, EventType.Normal, 'EnsuringLoadBalancer', 'Ensuring load balancer');
    await rec.flush();
    expect(kube.events).toHaveLength(1);
    expect(kube.events[0]).toMatchObject({
      metadata: { namespace: 'default' },
      involvedObject: { kind: 'Service', name: 'web', uid: 'u1' },
      reason: 'EnsuringLoadBalancer',
      message: 'Ensuring load balancer',
      type: 'Normal',
      source: { component: 'service-controller', host: 'host-a' },
      count: 1,
    });
  });

  it('counts repeats of the same event instead of creating new ones', async () => {
    const { kube, rec } = recorder();
    for (let i = 0; i < 3; i++) rec.event(svc, EventType.Normal, 'EnsuringLoadBalancer', 'Ensuring load balancer');
    await rec.flush();
    expect(kube.events).toHaveLength(1);
    expect(kube.events[0]?.count).toBe(3);
  });

  it('aggregates the 10th distinct message of the same reason', async () => {
    const { kube, rec } = recorder();
    for (let i = 0; i < 12; i++) rec.event(svc, EventType.Warning, 'SyncLoadBalancerFailed', `Error syncing load balancer: attempt ${i}`);
    await rec.flush();
    expect(kube.events.at(-1)?.message).toBe('(combined from similar events): Error syncing load balancer: attempt 11');
    expect(kube.events).toHaveLength(12);
  });

  it('drops events beyond the spam burst of 25 per object and refills 1 per 5 min', async () => {
    const { kube, rec, clock } = recorder();
    for (let i = 0; i < 30; i++) rec.event(svc, EventType.Normal, 'EnsuringLoadBalancer', 'Ensuring load balancer');
    await rec.flush();
    expect(kube.events[0]?.count).toBe(25);
    await clock.advance(300_000);
    rec.event(svc, EventType.Normal, 'EnsuringLoadBalancer', 'Ensuring load balancer');
    await rec.flush();
    expect(kube.events[0]?.count).toBe(26);
  });

  it('drops events past 1 000 waiting to be written, and records again once the queue drains', async () => {
    const { kube, rec } = recorder();
    const service = (i: number) => objectReference('Service', { metadata: { name: `web-${i}`, namespace: 'default', uid: `u${i}` } });
    for (let i = 0; i < MaxQueuedEvents + 5; i++) rec.event(service(i), EventType.Normal, 'EnsuringLoadBalancer', 'Ensuring load balancer');
    await rec.flush();
    expect(kube.events.map((e) => e.involvedObject.name)).toEqual(Array.from({ length: MaxQueuedEvents }, (_, i) => `web-${i}`));
    rec.event(service(MaxQueuedEvents), EventType.Normal, 'EnsuringLoadBalancer', 'Ensuring load balancer');
    await rec.flush();
    expect(kube.events).toHaveLength(MaxQueuedEvents + 1);
  });

  it("leaves the event write to a later turn of the event loop, after the caller's own next request", async () => {
    const { kube, rec } = recorder();
    rec.event(svc, EventType.Normal, 'EnsuredLoadBalancer', 'Ensured load balancer');
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(kube.events).toHaveLength(0);
    await rec.flush();
    expect(kube.events).toHaveLength(1);
  });

  it('never throws when the API write fails', async () => {
    const { kube, rec } = recorder();
    kube.failures.set('createEvent', new Error('forbidden'));
    rec.event(svc, EventType.Normal, 'X', 'y');
    await rec.flush();
    rec.event(svc, EventType.Normal, 'X', 'z');
    await rec.flush();
    expect(kube.events.map((e) => e.message)).toEqual(['z']);
  });
});
