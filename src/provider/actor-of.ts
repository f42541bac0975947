import type { Principal } from '../policy/access-request.js';
import type { Turn } from '../types.js';

/** Who a turn acts as: its pipeline, and its agent where the host has one. */
export function actorOf(turn: Turn): Principal {
  return { pipelineId: turn.pipelineId, ...(turn.agentId !== undefined && { agentId: turn.agentId }) };
}
