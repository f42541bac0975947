import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { nearestKey, type ServiceSettings } from '../config.js';
import { ContextError } from '../index.js';

/** Shorter keys are guessable; 16 characters of a random key are ~96 bits. */
const minimumKeyLength = 16;

/** Who a request is for: a configured tenant, or the one tokenless caller of a loopback service without keys. */
export interface Tenant {
  /** Absent for the tokenless loopback caller. */
  readonly id?: string;
  /** Throws FORBIDDEN unless this tenant may use the pipeline. */
  requirePipeline(pipelineId: string): void;
  /** Throws FORBIDDEN unless this tenant may name the agent. */
  requireAgent(agentId: string | undefined): void;
  /** Whether this tenant's trace stream may carry the pipeline's turns. */
  allowsPipeline(pipelineId: string): boolean;
  /** The id a conversation is stored under: the tenant's own namespace, so no tenant reaches another's. */
  conversationKey(conversationId: string): string;
  /** The client's conversation id from a stored one; undefined when it is not this tenant's. */
  conversationOf(stored: string): string | undefined;
}

/**
 * The service keys and what each may use. Keys come from the environment (`keyEnv`) or as
 * digests (`keySha256`) in the config, never from argv; a presented key is hashed and compared
 * with every tenant's digest in constant time, so neither a match nor its position shows in the
 * time taken.
 */
export class ServiceTenants {
  readonly #tenants: readonly (Tenant & { readonly digest: Buffer })[];

  constructor(
    settings: Pick<ServiceSettings, 'tenants'>,
    known: { readonly pipelines: readonly string[]; readonly agents: readonly string[] },
    environment: NodeJS.ProcessEnv = process.env,
  ) {
    this.#tenants = settings.tenants.map((tenant, index) => {
      const field = `config.service.tenants.${index}`;
      refuseUnknownIds(tenant.pipelines, known.pipelines, `${field}.pipelines`, 'pipeline');
      refuseUnknownIds(tenant.agents, known.agents, `${field}.agents`, 'agent');
      return {
        ...scopedTenant(tenant.id, new Set(tenant.pipelines), new Set(tenant.agents)),
        digest: digestOf(tenant, field, environment),
      };
    });
    const ids = this.#tenants.map((tenant) => tenant.id);
    const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
    if (repeated !== undefined) {
      throw new ContextError('INVALID_OPTION', `config.service.tenants: the id "${repeated}" is used twice`, {
        field: 'config.service.tenants',
        value: repeated,
      });
    }
    const digests = this.#tenants.map((tenant) => tenant.digest.toString('hex'));
    if (new Set(digests).size !== digests.length) {
      throw new ContextError('INVALID_OPTION', 'config.service.tenants: two tenants have the same key', {
        field: 'config.service.tenants',
      });
    }
  }

  /** Whether any key is configured (without one, only loopback is served, tokenless). */
  get keyed(): boolean {
    return this.#tenants.length > 0;
  }

  /**
   * The tenant whose key the `Authorization: Bearer` header carries; UNAUTHENTICATED without a
   * valid one. Without keys: the tokenless tenant, for a loopback client that no proxy relayed.
   */
  authenticate(
    authorization: string | undefined,
    client: { address: string; relayed: boolean; host: string },
  ): Tenant {
    if (!this.keyed) {
      // A loopback client that names another host is a browser page whose DNS now points here
      // (DNS rebinding): the page's origin would read the answers.
      if (!isLoopback(client.address) || client.relayed || !isLoopback(hostnameOf(client.host))) {
        throw new ContextError(
          'UNAUTHENTICATED',
          'this service has no keys and answers loopback clients only; a request a proxy relays needs a key (config service.tenants)',
          { field: 'authorization' },
        );
      }
      return tokenlessTenant;
    }
    const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
    if (!match?.[1]) {
      throw new ContextError('UNAUTHENTICATED', 'missing service key: send "Authorization: Bearer <key>"', {
        field: 'authorization',
      });
    }
    const presented = sha256(match[1]);
    let found: Tenant | undefined;
    // Every digest compared, whichever matches: the time taken does not tell which one did.
    for (const tenant of this.#tenants) {
      if (timingSafeEqual(presented, tenant.digest) && found === undefined) found = tenant;
    }
    if (!found)
      throw new ContextError('UNAUTHENTICATED', 'the service key is not valid', { field: 'authorization' });
    return found;
  }
}

/** Loopback: 127.0.0.0/8, ::1, and those as IPv4-mapped IPv6 addresses. */
export function isLoopback(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  const unmapped = bare.startsWith('::ffff:') ? bare.slice('::ffff:'.length) : bare;
  if (isIP(unmapped) === 4) return unmapped.startsWith('127.');
  return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
}

// --- Internal helpers ---

/** `127.0.0.1:8080` → `127.0.0.1`, `[::1]:8080` → `::1`. */
function hostnameOf(host: string): string {
  const bracketed = /^\[([^\]]+)\]/.exec(host);
  if (bracketed?.[1]) return bracketed[1];
  return host.split(':')[0] ?? '';
}

const tokenlessTenant: Tenant = {
  requirePipeline: () => {},
  requireAgent: () => {},
  allowsPipeline: () => true,
  conversationKey: (conversationId) => conversationId,
  conversationOf: (stored) => stored,
};

function scopedTenant(id: string, pipelines: ReadonlySet<string>, agents: ReadonlySet<string>): Tenant {
  const allowsPipeline = (pipelineId: string) => pipelines.has('*') || pipelines.has(pipelineId);
  const prefix = `${id}:`;
  return {
    id,
    allowsPipeline,
    requirePipeline(pipelineId) {
      if (allowsPipeline(pipelineId)) return;
      throw new ContextError('FORBIDDEN', `this service key may not use pipeline "${pipelineId}"`, {
        field: 'pipelineId',
        value: pipelineId,
      });
    },
    requireAgent(agentId) {
      if (agentId === undefined || agents.has('*') || agents.has(agentId)) return;
      throw new ContextError('FORBIDDEN', `this service key may not act as agent "${agentId}"`, {
        field: 'agentId',
        value: agentId,
      });
    },
    conversationKey: (conversationId) => `${prefix}${conversationId}`,
    conversationOf: (stored) => (stored.startsWith(prefix) ? stored.slice(prefix.length) : undefined),
  };
}

function digestOf(
  tenant: ServiceSettings['tenants'][number],
  field: string,
  environment: NodeJS.ProcessEnv,
): Buffer {
  if (tenant.keySha256 !== undefined) return Buffer.from(tenant.keySha256, 'hex');
  const name = tenant.keyEnv as string;
  const key = environment[name];
  if (key === undefined || key === '') {
    throw new ContextError(
      'CREDENTIAL_MISSING',
      `${field}.keyEnv: the environment variable ${name} is not set (it holds tenant "${tenant.id}"'s service key)`,
      { field: `${field}.keyEnv`, value: name },
    );
  }
  if (key.length < minimumKeyLength) {
    throw new ContextError(
      'INVALID_OPTION',
      `${field}.keyEnv: the key in ${name} has ${key.length} characters; a service key needs at least ${minimumKeyLength}`,
      { field: `${field}.keyEnv`, value: name, limit: minimumKeyLength },
    );
  }
  return sha256(key);
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function refuseUnknownIds(
  ids: readonly string[],
  known: readonly string[],
  field: string,
  kind: 'pipeline' | 'agent',
): void {
  for (const [index, id] of ids.entries()) {
    if (id === '*' || known.includes(id)) continue;
    const suggestion = nearestKey(id, known);
    throw new ContextError(
      'INVALID_OPTION',
      `${field}.${index}: no ${kind} "${id}" is bound in the config${suggestion ? `; did you mean "${suggestion}"?` : ''} (${kind}s: ${known.join(', ') || 'none'})`,
      { field: `${field}.${index}`, value: id },
    );
  }
}
