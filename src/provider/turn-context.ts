import type { FetchContext } from '../cache/fetch-attachment.js';
import type { Principal } from '../policy/access-request.js';
import type { Turn } from '../types.js';

/** What every attachment of one turn is fetched with. */
export interface TurnContext {
  readonly turn: Turn;
  readonly actor: Principal;
  /** Whether the actor may list each server, as decided this turn (see ResourceContextProvider#mayList). */
  readonly listable: Map<string, boolean>;
  readonly fetch: FetchContext;
}
