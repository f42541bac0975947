import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContextError } from '../../src/errors.js';
import { parsePromptArguments } from '../../src/prompts/parse-prompt-arguments.js';
import { parsePromptCommand } from '../../src/prompts/parse-prompt-command.js';
import { fuzzParameters } from '../support/fuzz-parameters.js';

/** What people (and models) type after a slash command, shuffled. */
const pieces = [
  ' ',
  '  ',
  '\t',
  '\n',
  '\u00a0',
  '=',
  '"',
  "'",
  '\\',
  '\\"',
  '{',
  '}',
  '[',
  ']',
  ':',
  ',',
  'null',
  '1',
  'true',
  'key',
  'k.v-1',
  '_',
  '__',
  '__proto__',
  'constructor',
  'C:\\Users',
  '漢字',
  '🙂',
];
const soup = fc.array(fc.constantFrom(...pieces), { maxLength: 16 }).map((parts) => parts.join(''));
const commandText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  soup,
  soup.map((rest) => `/mcp__srv__prompt ${rest}`),
  fc.tuple(soup, soup).map(([name, rest]) => `/mcp__${name} ${rest}`),
);

// Argument names as the parser takes them, with the names objects already have (`__proto__`
// was once dropped silently: the parser keeps it now, in a null-prototype record).
const keyArbitrary = fc.oneof(
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,8}$/),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'),
);
const argumentsArbitrary = fc.dictionary(keyArbitrary, fc.string({ unit: 'grapheme', maxLength: 20 }), {
  maxKeys: 5,
});

/** One argument written back as a person would type it: bare when it can be, else quoted. */
function renderPair(key: string, value: string, style: 'bare' | 'single' | 'double'): string {
  if (style === 'bare' && !/[\s"']/.test(value)) return `${key}=${value}`;
  if (style === 'single' && !value.includes("'")) return `${key}='${value}'`;
  return `${key}="${value.replace(/[\\"]/g, '\\$&')}"`;
}

describe('fuzz: argument parsers', () => {
  it('property: a prompt command parses or is INVALID_PROMPT_COMMAND, never anything else', () => {
    fc.assert(
      fc.property(
        commandText,
        fc.option(fc.array(soup, { maxLength: 3 }), { nil: undefined }),
        (text, servers) => {
          try {
            const command = parsePromptCommand(text, servers === undefined ? {} : { servers });
            for (const value of Object.values(command.arguments)) expect(typeof value).toBe('string');
          } catch (error) {
            expect(ContextError.isInstance(error), String(error)).toBe(true);
            expect((error as ContextError).code).toBe('INVALID_PROMPT_COMMAND');
          }
        },
      ),
      fuzzParameters(3000),
    );
  });

  it('property: arguments written as key=value pairs (bare, quoted) or as JSON parse back to themselves', () => {
    fc.assert(
      fc.property(
        argumentsArbitrary,
        fc.array(fc.constantFrom('bare' as const, 'single' as const, 'double' as const), {
          minLength: 5,
          maxLength: 5,
        }),
        (values, styles) => {
          const pairs = Object.entries(values).map(([key, value], index) =>
            renderPair(key, value, styles[index] ?? 'double'),
          );
          expect(parsePromptCommand(`/mcp__srv__prompt ${pairs.join(' ')}`).arguments).toEqual(values);
          expect(parsePromptCommand(`/mcp__srv__prompt ${JSON.stringify(values)}`).arguments).toEqual(values);
        },
      ),
      fuzzParameters(2000),
    );
  });

  it('property: parsePromptArguments, given text or shell words, parses or is INVALID_ARGUMENTS, never anything else', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          commandText,
          fc.array(fc.oneof(soup, fc.string({ unit: 'binary', maxLength: 12 })), { maxLength: 5 }),
        ),
        (input) => {
          try {
            parsePromptArguments(input);
          } catch (error) {
            expect(ContextError.isInstance(error), String(error)).toBe(true);
            expect((error as ContextError).code).toBe('INVALID_ARGUMENTS');
          }
        },
      ),
      fuzzParameters(2000),
    );
  });

  it('property: shell words key=value (spaces allowed in a bare word) round-trip', () => {
    fc.assert(
      fc.property(argumentsArbitrary, fc.boolean(), (values, quoteAll) => {
        const words = Object.entries(values).map(([key, value]) =>
          !quoteAll && !/["']/.test(value)
            ? `${key}=${value}`
            : `${key}="${value.replace(/[\\"]/g, '\\$&')}"`,
        );
        expect(parsePromptArguments(words)).toEqual(values);
      }),
      fuzzParameters(1000),
    );
  });
});
