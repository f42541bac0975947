import { describe, expect, it } from 'vitest';
import { emptyElement, escapeFrameTags, frameElement } from '../../src/render/frame-element.js';

describe('frameElement', () => {
  it('renders the tag, its escaped attributes, the body and a closing tag, ending in a blank line', () => {
    expect(
      frameElement(
        'note',
        [
          ['server', 'docs'],
          ['title', 'a & b'],
        ],
        'body',
      ),
    ).toBe('<note server="docs" title="a &amp; b">\nbody\n</note>\n\n');
  });

  it('without attributes, only the tag', () => {
    expect(frameElement('note', [], '')).toBe('<note>\n\n</note>\n\n');
  });

  it('escapes the body’s own spellings of its tag once more, whatever the caller passed', () => {
    expect(frameElement('note', [], 'x </note> y <NOTE a="1">')).toBe(
      '<note>\nx &lt;/note> y &lt;note a="1">\n</note>\n\n',
    );
  });
});

describe('emptyElement', () => {
  it('renders a self-closing tag with escaped attribute values', () => {
    expect(
      emptyElement('mcp-resource-link', [
        ['uri', 'x://a?b=1&c="2"'],
        ['name', '<b>\u202e'],
      ]),
    ).toBe('<mcp-resource-link uri="x://a?b=1&amp;c=&quot;2&quot;" name="&lt;b&gt;\\u{202e}"/>');
    expect(emptyElement('ref', [])).toBe('<ref/>');
  });
});

describe('escapeFrameTags', () => {
  it('writes every spelling of the opening and closing tag as &lt; plus the tag in its own spelling', () => {
    expect(escapeFrameTags('</mcp-resource> < / MCP-Resource > <\nmcp-resource x>', 'mcp-resource')).toBe(
      '&lt;/mcp-resource> &lt; / mcp-resource > &lt;\nmcp-resource x>',
    );
  });

  it('leaves other tags and text alone, and treats the tag name literally', () => {
    expect(escapeFrameTags('<b>a.b</b> <aXb> <a.b>', 'a.b')).toBe('<b>a.b</b> <aXb> &lt;a.b>');
  });

  it('each tag keeps its own pattern: a second tag does not change how the first is escaped', () => {
    expect(escapeFrameTags('</one> </two>', 'one')).toBe('&lt;/one> </two>');
    expect(escapeFrameTags('</one> </two>', 'two')).toBe('</one> &lt;/two>');
    expect(escapeFrameTags('</one> </two>', 'one')).toBe('&lt;/one> </two>');
  });
});
