// What `up` prints at the end (and `status` at the top): where everything is and what to try next.
import type { SandboxState } from '../state.ts';

function endpoints(state: SandboxState): string[] {
  const sim = state.simcloud;
  const ccm = state.ccm;
  return [
    `  console        ${state.consoleUrl ?? '-'}`,
    `  simcloud API   ${sim ? `${sim.url}  (SIMCLOUD_TOKEN=${sim.token})` : '-'}`,
    `  CCM            ${ccm ? `${ccm.url}/healthz  ${ccm.url}/metrics` : '-'}`,
  ];
}

function tryLines(state: SandboxState): string[] {
  const sim = state.simcloud;
  return [
    'Try:',
    '  kubectl get nodes -o wide',
    "  kubectl get nodes -o custom-columns='NAME:.metadata.name,PROVIDER-ID:.spec.providerID,TYPE:.metadata.labels.node\\.kubernetes\\.io/instance-type,ZONE:.metadata.labels.topology\\.kubernetes\\.io/zone,TAINTS:.spec.taints[*].key'",
    '  kubectl apply -f examples/loadbalancer-service.yaml && kubectl get service echo -w',
    '  npm run sandbox:status',
    ...(sim ? [`  export SIMCLOUD_URL=${sim.url} SIMCLOUD_TOKEN=${sim.token}`, '  npm run simcloud -- server list'] : []),
  ];
}

export function renderSummary(state: SandboxState): string {
  const total = state.steps.reduce((sum, s) => sum + s.durationMs, 0);
  const kc = state.kubeconfig ?? '(none)';
  const nameFlag = state.name === 'ccm-sandbox' ? '' : ` -- --name ${state.name}`;
  return [
    `ccm-sandbox "${state.name}" is ${state.status} (${state.runtime} runtime, lb strategy ${state.lbStrategy}) after ${(total / 1000).toFixed(1)} s`,
    ...state.steps.map((s) => `  ${s.name.padEnd(28)} ${(s.durationMs / 1000).toFixed(1).padStart(6)} s${s.detail ? `  ${s.detail}` : ''}`),
    '',
    ...endpoints(state),
    `  kubeconfig     ${kc}`,
    '',
    `  export KUBECONFIG=${kc}`,
    '',
    ...tryLines(state),
    '',
    'Next: open the console, apply an example Service from examples/ and curl its EXTERNAL-IP; then power a',
    'worker off (`npm run simcloud -- server poweroff <id>` or the console) and watch the node go NotReady and',
    'get the shutdown taint.',
    `Logs: npm run sandbox:logs -- [ccm|simcloud|kube-apiserver|...]    Stop: npm run sandbox:down${nameFlag}`,
  ].join('\n');
}
