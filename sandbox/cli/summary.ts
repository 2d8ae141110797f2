// What `up` prints at the end (and `status` at the top): where everything is and what to try next.
import type { SandboxState } from '../state.ts';

export function renderSummary(state: SandboxState): string {
  const total = state.steps.reduce((sum, s) => sum + s.durationMs, 0);
  const kc = state.kubeconfig ?? '(none)';
  const lines = [
    `ccm-sandbox "${state.name}" is ${state.status} (${state.runtime} runtime, lb strategy ${state.lbStrategy}) after ${(total / 1000).toFixed(1)} s`,
    ...state.steps.map((s) => `  ${s.name.padEnd(28)} ${(s.durationMs / 1000).toFixed(1).padStart(6)} s${s.detail ? `  ${s.detail}` : ''}`),
    '',
    `  console        ${state.consoleUrl ?? '-'}`,
    `  simcloud API   ${state.simcloud?.url ?? '-'}  (SIMCLOUD_TOKEN=${state.simcloud?.token ?? '-'})`,
    `  CCM            ${state.ccm ? `${state.ccm.url}/healthz  ${state.ccm.url}/metrics` : '-'}`,
    `  kubeconfig     ${kc}`,
    '',
    `  export KUBECONFIG=${kc}`,
    '',
    'Try:',
    '  kubectl get nodes -o wide',
    "  kubectl get nodes -o custom-columns='NAME:.metadata.name,PROVIDER-ID:.spec.providerID,TYPE:.metadata.labels.node\\.kubernetes\\.io/instance-type,ZONE:.metadata.labels.topology\\.kubernetes\\.io/zone,TAINTS:.spec.taints[*].key'",
    '  kubectl apply -f examples/loadbalancer-service.yaml && kubectl get service echo -w',
    '  npm run sandbox:status',
    '',
    `  export SIMCLOUD_URL=${state.simcloud?.url ?? ''} SIMCLOUD_TOKEN=${state.simcloud?.token ?? ''}`,
    '  npm run simcloud -- server list',
    '',
    'Next: open the console, apply an example Service from examples/ and curl its EXTERNAL-IP; then power a',
    'worker off (`npm run simcloud -- server poweroff <id>` or the console) and watch the node go NotReady and',
    'get the shutdown taint.',
    `Logs: npm run sandbox:logs -- [ccm|simcloud|kube-apiserver|...]    Stop: npm run sandbox:down${state.name === 'ccm-sandbox' ? '' : ` -- --name ${state.name}`}`,
  ];
  return lines.join('\n');
}
