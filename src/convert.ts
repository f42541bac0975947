// The `mcp-resource-context/convert` entry: media types to context parts: the converter registry, the default converters, your own converters, media-type parsing and the MCP Apps (ui://) rule.
// Any new export added here becomes public API. Use named exports, not wildcards.

export type { Converter, ConverterInput, ConverterOutput, MediaKind } from './convert/converter.js';
export {
  ConverterRegistry,
  createConverterRegistry,
  defaultConverters,
} from './convert/converter-registry.js';
export { createJsonConverter, type JsonConverterOptions } from './convert/converters/json-converter.js';
export { type MediaType, parseMediaType } from './convert/media-type.js';
export { isUiResource } from './convert/ui-resource.js';
