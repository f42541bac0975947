// The `mcp-resource-context/inspector` entry: a live page of servers, pins and turns, for hosts to
// mount (`createInspector`) or serve on loopback (`listenInspector`). Node-only (node:http), so
// kept off the root entry.
// Any new export added here becomes public API. Use named exports, not wildcards.

export {
  createInspector,
  type Inspector,
  type InspectorOptions,
} from './integrations/inspector/create-inspector.js';
export { type ListeningInspector, listenInspector } from './integrations/inspector/listen-inspector.js';
