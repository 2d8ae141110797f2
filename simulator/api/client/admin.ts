/** SimcloudAdminClient: the `/_sim/*` surface (admin token): health, reset, snapshot, seeds, time, faults, projects. */
import { ProjectListResponse, ProjectResponse, TokenListResponse, TokenResponse, type CreatedToken, type Project, type Token } from '../schema/projects.ts';
import {
  FaultRuleListResponse,
  FaultRuleResponse,
  Health,
  OkResponse,
  SeedResponse,
  Snapshot,
  TimeState,
  type FaultRule,
  type FaultRuleInput,
  type SeedName,
  type SetTimeRequest,
} from '../schema/internal.ts';
import { buildRequester, type SimcloudClientOptions } from './client.ts';
import { seg, type CallOptions, type Requester } from './requester.ts';

export class SimcloudAdminClient {
  readonly #r: Requester;

  /** `token` is the admin token. */
  constructor(opts: SimcloudClientOptions) {
    this.#r = buildRequester(opts);
  }

  async health(opts?: CallOptions): Promise<Health> {
    return this.#r.call('admin.health', Health, { method: 'GET', path: '/_sim/health' }, opts);
  }

  /** Removes every resource, action and fault; keeps projects and tokens. */
  async reset(opts?: CallOptions): Promise<void> {
    await this.#r.call('admin.reset', OkResponse, { method: 'POST', path: '/_sim/reset', body: {} }, opts);
  }

  async snapshot(opts?: CallOptions): Promise<Snapshot> {
    return this.#r.call('admin.snapshot', Snapshot, { method: 'GET', path: '/_sim/snapshot' }, opts);
  }

  async loadSnapshot(snapshot: Snapshot, opts?: CallOptions): Promise<void> {
    await this.#r.call('admin.loadSnapshot', OkResponse, { method: 'PUT', path: '/_sim/snapshot', body: snapshot }, opts);
  }

  async seed(name: SeedName, projectId?: string, opts?: CallOptions): Promise<{ project_id: string; seed: string }> {
    const body = projectId === undefined ? { name } : { name, project_id: projectId };
    return this.#r.call('admin.seed', SeedResponse, { method: 'POST', path: '/_sim/seed', body }, opts);
  }

  async time(opts?: CallOptions): Promise<TimeState> {
    return this.#r.call('admin.time', TimeState, { method: 'GET', path: '/_sim/time' }, opts);
  }

  async setTime(body: SetTimeRequest, opts?: CallOptions): Promise<TimeState> {
    return this.#r.call('admin.setTime', TimeState, { method: 'PUT', path: '/_sim/time', body }, opts);
  }

  /** Advances simulated time by `ms`, firing every transition that falls due. */
  async fastForward(ms: number, opts?: CallOptions): Promise<TimeState> {
    return this.#r.call('admin.fastForward', TimeState, { method: 'POST', path: '/_sim/time/fast_forward', body: { ms } }, opts);
  }

  async listFaults(opts?: CallOptions): Promise<FaultRule[]> {
    return (await this.#r.call('admin.listFaults', FaultRuleListResponse, { method: 'GET', path: '/_sim/faults' }, opts)).faults;
  }

  async addFault(rule: FaultRuleInput, opts?: CallOptions): Promise<FaultRule> {
    return (await this.#r.call('admin.addFault', FaultRuleResponse, { method: 'POST', path: '/_sim/faults', body: rule }, opts)).fault;
  }

  async deleteFault(id: string, opts?: CallOptions): Promise<void> {
    await this.#r.callVoid('admin.deleteFault', { method: 'DELETE', path: `/_sim/faults/${seg(id)}` }, opts);
  }

  async clearFaults(opts?: CallOptions): Promise<void> {
    await this.#r.callVoid('admin.clearFaults', { method: 'DELETE', path: '/_sim/faults' }, opts);
  }

  async listProjects(opts?: CallOptions): Promise<Project[]> {
    return (await this.#r.call('admin.listProjects', ProjectListResponse, { method: 'GET', path: '/_sim/projects' }, opts)).projects;
  }

  async createProject(name: string, opts?: CallOptions): Promise<Project> {
    return (await this.#r.call('admin.createProject', ProjectResponse, { method: 'POST', path: '/_sim/projects', body: { name } }, opts)).project;
  }

  async deleteProject(id: string, opts?: CallOptions): Promise<void> {
    await this.#r.callVoid('admin.deleteProject', { method: 'DELETE', path: `/_sim/projects/${seg(id)}` }, opts);
  }

  async listTokens(projectId: string, opts?: CallOptions): Promise<Token[]> {
    const path = `/_sim/projects/${seg(projectId)}/tokens`;
    return (await this.#r.call('admin.listTokens', TokenListResponse, { method: 'GET', path }, opts)).tokens;
  }

  /** The secret is only in this answer. */
  async createToken(projectId: string, body: { name: string; token?: string }, opts?: CallOptions): Promise<CreatedToken> {
    const path = `/_sim/projects/${seg(projectId)}/tokens`;
    return (await this.#r.call('admin.createToken', TokenResponse, { method: 'POST', path, body }, opts)).token;
  }

  async deleteToken(id: string, opts?: CallOptions): Promise<void> {
    await this.#r.callVoid('admin.deleteToken', { method: 'DELETE', path: `/_sim/tokens/${seg(id)}` }, opts);
  }
}
