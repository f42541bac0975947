import type { Converter } from '../../src/convert/converter.js';
import { createConverterRegistry } from '../../src/convert/converter-registry.js';

/**
 * The built-in converters plus one for `mediaType` that records the text of every call, so a
 * test can tell whether (and how often) a read was converted rather than taken from a memo.
 */
export function countingRegistry(mediaType = 'text/markdown') {
  const calls: string[] = [];
  const counting: Converter = {
    name: 'counting',
    mediaTypes: [mediaType],
    input: 'text',
    convert: ({ text = '' }) => {
      calls.push(text);
      return { kind: 'text', text };
    },
  };
  return { registry: createConverterRegistry([counting]), calls };
}
