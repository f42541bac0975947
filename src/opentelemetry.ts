// The `mcp-resource-context/opentelemetry` entry: spans and metrics over `@opentelemetry/api`
// (an optional peer), kept off the root entry so hosts without it never load it.
// Any new export added here becomes public API. Use named exports, not wildcards.

export { type OpenTelemetryOptions, openTelemetry } from './integrations/opentelemetry/open-telemetry.js';
export type { Telemetry, TelemetryAttributes, TelemetrySpan } from './trace/telemetry.js';
