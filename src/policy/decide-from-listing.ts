import type { Resource } from '@modelcontextprotocol/client';

/** Why an attachment is left out before it is read, or undefined to read it. */
export type ListingVerdict = { readonly omit: true; readonly reason: string } | undefined;

/**
 * What a resource's listing decides before anything is read (MCP spec, "Annotations" and
 * "Resource"): content whose `audience` leaves out `assistant` is for the user, not the model
 * (unless the pin says `ignoreAudience`); content listed as larger than the byte cap would be
 * cut anyway, so it is not fetched at all. An unlisted resource is read as usual. Arguments,
 * not an options object: every warm turn decides every attachment it has a listing for.
 */
export function decideFromListing(
  listed: Resource | undefined,
  ignoreAudience: boolean,
  maxBytes: number | undefined,
): ListingVerdict {
  if (!listed) return undefined;
  const audience = listed.annotations?.audience;
  if (audience !== undefined && !audience.includes('assistant') && !ignoreAudience) {
    return {
      omit: true,
      reason: `the server marks it for the ${audience.join(' and ') || 'no'} audience, not the assistant (pin with ignoreAudience to inject it anyway)`,
    };
  }
  if (listed.size !== undefined && maxBytes !== undefined && listed.size > maxBytes) {
    return {
      omit: true,
      reason: `listed at ${listed.size} bytes, over the byte cap of ${maxBytes}: not read (raise the binding's maxBytes or the registry's maxReadBytes to read it)`,
    };
  }
  return undefined;
}
