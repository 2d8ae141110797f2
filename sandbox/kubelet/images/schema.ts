// The image table's format (behaviour as data, kwok's idea in a format of our own): for each well-known
// image, what a pod running it answers on HTTP, on a plain TCP connection and to a UDP datagram. Strings
// are templates: `{{pod.name}}`, `{{env.POD_NAME}}`, `{{flag.text}}`, `{{request.query.msg}}` and the other
// names listed in docs/runtimes.md are filled in per request (render.ts). The same shape, without `images`,
// is a pod's own override in its `ccm-sandbox.dev/replies` annotation.
import { z } from 'zod';

const Template = z.string().max(16_384);

/** One answer: a status, headers and a body that is either text or JSON (its strings are templates). */
export const Reply = z
  .strictObject({
    status: z.number().int().min(100).max(599).default(200),
    headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, 'a header name'), Template).default({}),
    text: Template.optional(),
    json: z.json().optional(),
  })
  .refine((r) => (r.text === undefined) !== (r.json === undefined), 'give exactly one of text and json');
export type Reply = z.infer<typeof Reply>;

/** An HTTP route: `path` exact, or a prefix when it ends in `*` (`/*` is every path). */
export const HttpRoute = z.strictObject({
  path: z.string().startsWith('/').max(1024),
  method: z
    .string()
    .regex(/^[A-Z]+$/)
    .optional(),
  reply: Reply,
});
export type HttpRoute = z.infer<typeof HttpRoute>;

/**
 * A line (TCP: the first line the client sends, empty when it sends nothing) or a datagram (UDP), answered
 * by the first rule whose `when` it starts with (no `when`: any); `{{request.rest}}` is what follows `when`.
 */
export const MessageRule = z.strictObject({ when: z.string().max(1024).optional(), reply: Template });
export type MessageRule = z.infer<typeof MessageRule>;

/**
 * What a pod answers; a protocol left out answers nothing (an HTTP server given a non-HTTP line: 400).
 * `proxyProtocol: required`: the server expects a PROXY protocol header first (nginx's `listen ... proxy_protocol`)
 * and closes a TCP connection that starts without one, unanswered.
 */
export const Behaviour = z.strictObject({
  proxyProtocol: z.literal('required').optional(),
  http: z.array(HttpRoute).max(64).optional(),
  tcp: z.array(MessageRule).max(64).optional(),
  udp: z.array(MessageRule).max(64).optional(),
});
export type Behaviour = z.infer<typeof Behaviour>;

/**
 * One image's entry. `images`: references without tag or digest (`nginx`, `registry.k8s.io/e2e-test-images/agnhost`;
 * Docker Hub's `docker.io/` and `library/` are implied). `args`: words that must all be among the container's
 * command and args (agnhost's subcommand), so one image can have an entry per mode; the first entry that
 * matches wins.
 */
export const ImageEntry = Behaviour.extend({
  name: z.string().min(1).max(128),
  images: z.array(z.string().min(1).max(512)).min(1),
  args: z.array(z.string().min(1)).optional(),
  /** Tags the entry is for, `*` matching any run of characters (`v0.*`); absent: any tag or digest. */
  tags: z.array(z.string().min(1).max(128)).optional(),
  /**
   * A runnable image: the virtual kubelet runs the container as this local binary (the image's
   * entrypoint) instead of simulating it (sandbox/kubelet/containers/); the process answers for itself.
   */
  run: z.strictObject({ binary: z.string().startsWith('/', 'an absolute path').max(4096) }).optional(),
});
export type ImageEntry = z.infer<typeof ImageEntry>;

export const ImageTable = z.strictObject({ images: z.array(ImageEntry) });
export type ImageTable = z.infer<typeof ImageTable>;

/** The pod annotation whose JSON (a Behaviour) overrides the table for that pod. */
export const REPLIES_ANNOTATION = 'ccm-sandbox.dev/replies';
/** That annotation's value asking for the stand-in's own JSON whatever the image (tests that read the node, endpoint, PROXY header). */
export const STAND_IN_REPLIES = 'stand-in';
