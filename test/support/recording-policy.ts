import { AccessPolicy } from '../../src/policy/access-policy.js';
import type { AccessDecision, AccessRequest } from '../../src/policy/access-request.js';

/** An AccessPolicy that remembers every request it decides. */
export class RecordingPolicy extends AccessPolicy {
  readonly requests: AccessRequest[] = [];

  override authorize(request: AccessRequest): AccessDecision {
    this.requests.push(request);
    return super.authorize(request);
  }
}
