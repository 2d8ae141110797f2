// The Cluster API resources the local runtime serves (cluster.x-k8s.io/v1beta1 MachineDeployment and
// Machine) as CustomResourceDefinitions of our own: only the fields the sandbox acts on or reports, with
// the names and shapes Cluster API gives them, so `kubectl get/patch/scale machinedeployment` work as
// against a management cluster. Bad input is refused by the schema (openAPIV3 and CEL rules, each with
// a message naming the field).
import type { V1CustomResourceDefinition, V1JSONSchemaProps } from '@kubernetes/client-node';

export const CAPI_GROUP = 'cluster.x-k8s.io';
export const CAPI_VERSION = 'v1beta1';
export const CAPI_API_VERSION = `${CAPI_GROUP}/${CAPI_VERSION}`;
export const PLURALS = { machineDeployment: 'machinedeployments', machine: 'machines' } as const;

/** Workers one MachineDeployment may ask for: as many as `--workers` takes (each a virtual kubelet on this machine). */
export const MAX_REPLICAS = 50;

// Bounded so the CEL rule comparing selector and template labels stays within the apiserver's cost budget.
const labelMap = (maxProperties: number): V1JSONSchemaProps => ({ type: 'object', maxProperties, additionalProperties: { type: 'string', maxLength: 63 } });
const labels = labelMap(32);
const clusterName: V1JSONSchemaProps = {
  type: 'string',
  minLength: 1,
  maxLength: 63,
  description: 'The Cluster this belongs to (the sandbox serves one: its --name).',
  x_kubernetes_validations: [{ rule: 'self == oldSelf', message: 'clusterName is immutable' }],
};
/** An object's schema: its spec and status beside the fields every object has. */
function resourceSchema(parts: { spec: V1JSONSchemaProps; status: V1JSONSchemaProps }): V1JSONSchemaProps {
  return { type: 'object', properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, ...parts } };
}

const count = (description: string): V1JSONSchemaProps => ({ type: 'integer', format: 'int32', minimum: 0, description });

const machineDeploymentSchema = resourceSchema({
  spec: {
    type: 'object',
    required: ['clusterName', 'selector', 'template'],
    properties: {
      clusterName,
      replicas: {
        type: 'integer',
        format: 'int32',
        minimum: 0,
        maximum: MAX_REPLICAS,
        description: 'Number of worker machines wanted.',
      },
      selector: {
        type: 'object',
        required: ['matchLabels'],
        properties: { matchLabels: labelMap(8) },
      },
      template: {
        type: 'object',
        required: ['spec'],
        properties: {
          metadata: { type: 'object', properties: { labels, annotations: { type: 'object', additionalProperties: { type: 'string' } } } },
          spec: {
            type: 'object',
            required: ['clusterName'],
            properties: { clusterName: { type: 'string', minLength: 1 }, version: { type: 'string' } },
          },
        },
      },
      strategy: {
        type: 'object',
        properties: {
          type: { type: 'string', _enum: ['RollingUpdate', 'OnDelete'] },
          rollingUpdate: {
            type: 'object',
            properties: {
              deletePolicy: {
                type: 'string',
                _enum: ['Newest', 'Oldest'],
                description: 'Which machines go first on a scale-down (the sandbox does not offer Random).',
              },
            },
          },
        },
      },
    },
    x_kubernetes_validations: [
      {
        rule: 'self.selector.matchLabels.all(k, has(self.template.metadata) && has(self.template.metadata.labels) && k in self.template.metadata.labels && self.template.metadata.labels[k] == self.selector.matchLabels[k])',
        message: 'spec.template.metadata.labels must carry every label of spec.selector.matchLabels',
      },
      { rule: 'self.template.spec.clusterName == self.clusterName', message: 'spec.template.spec.clusterName must equal spec.clusterName' },
    ],
  },
  status: {
    type: 'object',
    properties: {
      selector: { type: 'string' },
      replicas: count('Machines of this deployment (being deleted included).'),
      updatedReplicas: count('Machines with the current template.'),
      readyReplicas: count('Machines whose Node is Ready.'),
      availableReplicas: count('Machines ready for minReadySeconds (0).'),
      unavailableReplicas: count('Wanted replicas not available.'),
      observedGeneration: { type: 'integer', format: 'int64' },
      phase: { type: 'string' },
    },
  },
});

const machineSchema = resourceSchema({
  spec: {
    type: 'object',
    required: ['clusterName'],
    properties: {
      clusterName,
      providerID: { type: 'string', description: "The cloud's id of the machine, as its Node carries it." },
      version: { type: 'string' },
    },
  },
  status: {
    type: 'object',
    properties: {
      nodeRef: {
        type: 'object',
        properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, name: { type: 'string' }, uid: { type: 'string' } },
      },
      phase: { type: 'string' },
      bootstrapReady: { type: 'boolean' },
      infrastructureReady: { type: 'boolean' },
      addresses: {
        type: 'array',
        items: { type: 'object', properties: { type: { type: 'string' }, address: { type: 'string' } } },
      },
      failureReason: { type: 'string' },
      failureMessage: { type: 'string' },
      lastUpdated: { type: 'string', format: 'date-time' },
    },
  },
});

const column = (name: string, jsonPath: string, type = 'string'): { name: string; jsonPath: string; type: string } => ({ name, jsonPath, type });
const AGE = column('Age', '.metadata.creationTimestamp', 'date');

type Version = V1CustomResourceDefinition['spec']['versions'][number];

function crd(
  o: { kind: string; plural: string; shortName: string; schema: V1JSONSchemaProps } & Pick<Version, 'subresources' | 'additionalPrinterColumns'>,
): V1CustomResourceDefinition {
  const { kind, plural, shortName, schema, ...extra } = o;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${CAPI_GROUP}`, labels: { 'cluster.x-k8s.io/provider': 'ccm-sandbox' } },
    spec: {
      group: CAPI_GROUP,
      scope: 'Namespaced',
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase(), shortNames: [shortName], categories: ['cluster-api'] },
      versions: [{ name: CAPI_VERSION, served: true, storage: true, schema: { openAPIV3Schema: schema }, ...extra }],
    },
  };
}

export const CLUSTER_API_CRDS: readonly V1CustomResourceDefinition[] = [
  crd({
    kind: 'MachineDeployment',
    plural: PLURALS.machineDeployment,
    shortName: 'md',
    schema: machineDeploymentSchema,
    subresources: {
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' },
    },
    additionalPrinterColumns: [
      column('Cluster', '.spec.clusterName'),
      column('Desired', '.spec.replicas', 'integer'),
      column('Replicas', '.status.replicas', 'integer'),
      column('Ready', '.status.readyReplicas', 'integer'),
      column('Updated', '.status.updatedReplicas', 'integer'),
      column('Unavailable', '.status.unavailableReplicas', 'integer'),
      column('Phase', '.status.phase'),
      AGE,
    ],
  }),
  crd({
    kind: 'Machine',
    plural: PLURALS.machine,
    shortName: 'ma',
    schema: machineSchema,
    subresources: { status: {} },
    additionalPrinterColumns: [
      column('Cluster', '.spec.clusterName'),
      column('NodeName', '.status.nodeRef.name'),
      column('ProviderID', '.spec.providerID'),
      column('Phase', '.status.phase'),
      AGE,
    ],
  }),
];
