// The `mcp-resource-context/config` entry: the mcp-context.json config file: load it from a path, or parse an object, into the options of a registry, a policy, a provider and its stores.
// Any new export added here becomes public API. Use named exports, not wildcards.

export { loadContextConfig } from './config/load-context-config.js';
export {
  type ContextConfig,
  type ParseContextConfigOptions,
  parseContextConfig,
} from './config/parse-context-config.js';
export {
  defaultServiceSettings,
  type ServiceSettings,
  type ServiceTenantSettings,
} from './config/service-settings.js';
// The unknown-key hint config errors give (`did you mean "budget"?`), for hosts that check their own input the same way.
export { nearestKey } from './options/nearest-key.js';
