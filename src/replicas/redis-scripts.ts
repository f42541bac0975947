// Lua scripts run atomically by Redis. Every shared copy records the generations of its server
// and its URI when the read began; an invalidation increments them, so a copy read before an
// invalidation can neither be served nor stored after it (no delete has to win a race).

/**
 * Redis's clock in milliseconds: one clock for every replica, so a copy's age does not depend on
 * the clock of the replica that wrote it (scripts may call TIME: Redis 5+ replicates effects).
 */
const redisNowMs = `
local function nowMs()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
`;

/**
 * A generation as Redis holds it, raised first to `heard` (the highest this replica heard
 * announced) when Redis holds less: Redis restarted from an older snapshot has its counters go
 * back, and the copies of that snapshot with them. The replicas' memory wins, so those copies
 * stay older than the generation, and a later invalidation counts on from what was announced.
 */
const raisedGeneration = `
-- → the generation, and what Redis held before.
local function raisedGeneration(key, heard, ttlMs)
  local stored = redis.call('GET', key) or '0'
  if heard > (tonumber(stored) or 0) then
    local raised = string.format('%d', heard)
    redis.call('SET', key, raised, 'PX', ttlMs)
    return raised, stored
  end
  return stored, stored
end
`;

/**
 * KEYS: entry, lease, serverGeneration, uriGeneration.
 * ARGV: token, leaseMs, skipCopy, maxBodyBytes, heardServerGeneration, heardUriGeneration, generationTtlMs.
 * → hit body ageMs | lead serverGeneration uriGeneration unusable | wait unusable.
 *
 * What is at the entry's key is untrusted (anything may have written there): a key of another
 * type, a hash without a body or with a body larger than any copy is not a copy (`unusable` says
 * `malformed`), and the lease is taken as for a miss. With skipCopy = 1 the copy is passed over:
 * the caller found it unusable, and reads under the lease instead. A copy current by Redis's
 * generations but older than one this replica heard is `outdated` (Redis went back): never served.
 */
export const lookupScript = `
${redisNowMs}
-- How long ago the copy was stored, on Redis's own clock ('' for a copy stored without a time).
local function ageOf(storedAt)
  local stored = tonumber(storedAt or '')
  if not stored then return '' end
  return tostring(nowMs() - stored)
end
${raisedGeneration}
local heardServer = tonumber(ARGV[5]) or 0
local heardUri = tonumber(ARGV[6]) or 0
local serverGeneration, heldServer = raisedGeneration(KEYS[3], heardServer, ARGV[7])
local uriGeneration, heldUri = raisedGeneration(KEYS[4], heardUri, ARGV[7])
local unusable = ''
local kind = redis.call('TYPE', KEYS[1]).ok
if kind == 'hash' then
  local entry = redis.call('HMGET', KEYS[1], 's', 'u', 'body')
  if not entry[3] or redis.call('HSTRLEN', KEYS[1], 'body') > tonumber(ARGV[4]) then
    unusable = 'malformed'
  elseif entry[1] == heldServer and entry[2] == heldUri and (heldServer ~= serverGeneration or heldUri ~= uriGeneration) then
    -- Current by what Redis held, older than what this replica heard: Redis went back.
    unusable = 'outdated'
  elseif entry[1] == serverGeneration and entry[2] == uriGeneration and ARGV[3] ~= '1' then
    return {'hit', entry[3], ageOf(redis.call('HGET', KEYS[1], 't'))}
  end
elseif kind ~= 'none' then
  unusable = 'malformed'
end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return {'lead', serverGeneration, uriGeneration, unusable}
end
return {'wait', unusable}
`;

/**
 * KEYS: entry, lease, serverGeneration, uriGeneration.
 * ARGV: token, serverGeneration, uriGeneration, body, ttlMs, generationTtlMs.
 * → 1 stored, 0 invalidated meanwhile.
 * The copy records when it was stored on Redis's clock (`t`): its age for every reader.
 */
export const fillScript = `
${redisNowMs}
local stored = 0
if (redis.call('GET', KEYS[3]) or '0') == ARGV[2] and (redis.call('GET', KEYS[4]) or '0') == ARGV[3] then
  -- Replaces whatever was there (a key of another type, fields a copy does not have).
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 's', ARGV[2], 'u', ARGV[3], 'body', ARGV[4], 't', nowMs())
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  -- The generations outlive the copy: one that expired would go back to 0 under a live copy.
  redis.call('PEXPIRE', KEYS[3], ARGV[6])
  redis.call('PEXPIRE', KEYS[4], ARGV[6])
  stored = 1
end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return stored
`;

/** KEYS: lease. ARGV: token. Frees the lease only if it is still this holder's. */
export const releaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** KEYS: lease. ARGV: token, leaseMs. Extends the lease while its holder is alive and reading. */
export const renewScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/**
 * KEYS: generation. ARGV: channel, message, generationTtlMs, heardGeneration. Invalidates the
 * shared copies and tells the other replicas, in one step: the generation goes one past the
 * higher of what Redis holds and what this replica heard, and the message (a JSON object) says
 * which, so every replica remembers it. A generation outlives every copy that depends on it.
 * → the new generation.
 */
export const invalidateScript = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
local heard = tonumber(ARGV[4]) or 0
if heard > current then current = heard end
local generation = string.format('%d', current + 1)
redis.call('SET', KEYS[1], generation, 'PX', ARGV[3])
redis.call('PUBLISH', ARGV[1], '{"generation":' .. generation .. ',' .. string.sub(ARGV[2], 2))
return generation
`;
