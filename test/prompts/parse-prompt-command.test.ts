import { describe, expect, it } from 'vitest';
import { parsePromptCommand } from '../../src/prompts/parse-prompt-command.js';

describe('parsePromptCommand', () => {
  it('reads server, prompt and key=value pairs', () => {
    expect(parsePromptCommand('/mcp__gitnexus__detect_impact scope=compare base_ref=main')).toEqual({
      server: 'gitnexus',
      prompt: 'detect_impact',
      arguments: { scope: 'compare', base_ref: 'main' },
    });
  });

  it('takes a command without arguments', () => {
    expect(parsePromptCommand('/mcp__gitnexus__generate_map')).toEqual({
      server: 'gitnexus',
      prompt: 'generate_map',
      arguments: {},
    });
  });

  it('keeps quoted values whole, with escaped quotes', () => {
    expect(
      parsePromptCommand(`/mcp__iac__plan name="prod vpc" note='single quoted' title="say \\"hi\\""`),
    ).toMatchObject({
      arguments: { name: 'prod vpc', note: 'single quoted', title: 'say "hi"' },
    });
  });

  it('keeps Windows paths, quoted or not, with their backslashes', () => {
    expect(parsePromptCommand('/mcp__fs__open path=C:\\Users\\me\\file.txt').arguments).toEqual({
      path: 'C:\\Users\\me\\file.txt',
    });
    expect(parsePromptCommand('/mcp__fs__open path="C:\\Program Files\\app"').arguments).toEqual({
      path: 'C:\\Program Files\\app',
    });
    expect(parsePromptCommand('/mcp__fs__open path="C:\\\\share\\\\"').arguments).toEqual({
      path: 'C:\\share\\',
    });
  });

  it('reads JSON arguments, converting numbers and booleans to strings', () => {
    expect(
      parsePromptCommand('/mcp__iac__plan {"template_name": "prod-vpc", "count": 3, "dry": true}').arguments,
    ).toEqual({
      template_name: 'prod-vpc',
      count: '3',
      dry: 'true',
    });
  });

  it('lets the server name carry single underscores and the prompt name anything but spaces', () => {
    expect(parsePromptCommand('/mcp__my_server__do__it x=1')).toMatchObject({
      server: 'my_server',
      prompt: 'do__it',
    });
  });

  it('splits on any whitespace, keeps "=" inside values, and takes empty values as given', () => {
    expect(
      parsePromptCommand('/mcp__web__fetch  url=https://x.test/?a=b&c=d\t  note="a  b"  empty=').arguments,
    ).toEqual({
      url: 'https://x.test/?a=b&c=d',
      note: 'a  b',
      empty: '',
    });
  });

  it.each([
    ["/mcp__gitnexus__detect_impact scope='compare", 'never closed'],
    ['/mcp__gitnexus__detect_impact 1scope=a', 'not an argument name'],
    ['/mcp__gitnexus__detect_impact scope =a', 'expected key=value'],
    ['/mcp__gitnexus__detect_impact {"scope": null}', 'must be a string, number or boolean'],
    ['/mcp__gitnexus__detect_impact scope="compare', 'never closed'],
    ['/mcp__gitnexus__detect_impact scope', 'expected key=value'],
    ['/mcp__gitnexus__detect_impact scope=a scope=b', 'given twice'],
    ['/mcp__gitnexus__detect_impact scope="a"b', 'text follows the closing quote'],
    ['/mcp__gitnexus__detect_impact scope=a"b', 'quote inside an unquoted value'],
    ['/mcp__gitnexus__detect_impact {"scope": ', 'not valid JSON'],
    ['/mcp__gitnexus__detect_impact {"scope": {"nested": 1}}', 'must be a string, number or boolean'],
    ['/mcp__gitnexus__detect_impact ["a"]', 'expected key=value'],
    ['/gitnexus detect_impact', 'looks like /mcp__'],
    ['/mcp__gitnexus', 'looks like /mcp__'],
  ])('refuses %j with a clear error (%s)', (input, message) => {
    expect(() => parsePromptCommand(input)).toThrow(
      expect.objectContaining({ code: 'INVALID_PROMPT_COMMAND', message: expect.stringContaining(message) }),
    );
  });
});

describe('parsePromptCommand with the configured server names', () => {
  it('resolves a server name that contains "__" by the longest configured match', () => {
    expect(parsePromptCommand('/mcp__team__docs__search q=x', { servers: ['team', 'team__docs'] })).toEqual({
      server: 'team__docs',
      prompt: 'search',
      arguments: { q: 'x' },
    });
  });

  it('names the configured servers when none matches', () => {
    expect(() => parsePromptCommand('/mcp__ghost__p', { servers: ['gitnexus'] })).toThrow(
      expect.objectContaining({
        code: 'INVALID_PROMPT_COMMAND',
        message: expect.stringContaining('configured: gitnexus'),
      }),
    );
  });
});
