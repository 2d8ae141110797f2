// The Events the virtual kubelets' container runtime records (Started, Killing, BackOff, FailedMount, Failed,
// as a kubelet names them), through the project's one recorder (src/kube/event-recorder.ts), with its log
// lines in <stateDir>/logs/containers.log.
import { hostname } from 'node:os';
import pino from 'pino';
import { KubeClient } from '../../../src/kube/api-client.ts';
import { ClientKube } from '../../../src/kube/client-kube.ts';
import { KubeEventRecorder } from '../../../src/kube/event-recorder.ts';
import type { EventRecorder } from '../../../src/kube/events.ts';
import { readKubeConfigFile } from '../../../src/kube/kubeconfig.ts';
import { KubeTransport } from '../../../src/kube/transport.ts';

export function kubeletEventRecorder(kubeconfigPath: string, logFile: string): EventRecorder {
  const kube = new ClientKube(new KubeClient(new KubeTransport(readKubeConfigFile(kubeconfigPath)), undefined, 'ccm-sandbox-kubelet'));
  const logger = pino({ base: { component: 'kubelet' } }, pino.destination({ dest: logFile, mkdir: true, sync: true, mode: 0o600 }));
  return new KubeEventRecorder({ kube, component: 'kubelet', host: hostname(), logger });
}
