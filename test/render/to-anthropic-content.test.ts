import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { toAnthropicContent } from '../../src/render/to-anthropic-content.js';
import type { BlockProvenance, ContextBlock } from '../../src/types.js';

const provenance = (scope: BlockProvenance['scope'], uri: string): BlockProvenance => ({
  scope,
  server: 'docs',
  uri,
  mimeType: 'text/plain',
  sha256: 'a'.repeat(64),
  truncated: false,
});

const blocks: ContextBlock[] = [
  { kind: 'preamble', text: 'PREAMBLE' },
  { kind: 'resource', text: 'pipeline pin', provenance: provenance('pipeline', 'docs://a') },
  {
    kind: 'resource',
    text: 'conversation pin',
    provenance: provenance('conversation', 'docs://b'),
    parts: [{ kind: 'image', uri: 'docs://b.png', mimeType: 'image/png', data: 'iVBORw==', bytes: 4 }],
  },
  {
    kind: 'resource',
    text: 'message attachment',
    provenance: provenance('message', 'docs://c'),
    parts: [
      { kind: 'document', uri: 'docs://c.pdf', mimeType: 'application/pdf', data: 'JVBERi0=', bytes: 5 },
      { kind: 'audio', uri: 'docs://c.wav', mimeType: 'audio/wav', data: 'UklGRg==', bytes: 4 },
    ],
  },
];

describe('toAnthropicContent', () => {
  it('text blocks, base64 images and PDF documents after the block naming them; audio as a visible placeholder', () => {
    expect(toAnthropicContent(blocks)).toEqual([
      { type: 'text', text: 'PREAMBLE' },
      { type: 'text', text: 'pipeline pin' },
      { type: 'text', text: 'conversation pin' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw==' } },
      { type: 'text', text: 'message attachment' },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
      {
        type: 'text',
        text: '[audio docs://c.wav (audio/wav, 4 bytes) not sent: the Anthropic Messages API does not accept it]',
      },
    ]);
  });

  it('cache_control marks the last block of the stable prefix (preamble, pipeline and conversation pins)', () => {
    const content = toAnthropicContent(blocks, { cacheControl: true });
    const marked = content.flatMap((block, index) => (block.cache_control ? [index] : []));
    expect(marked).toEqual([3]);
    expect(content[3]).toMatchObject({ type: 'image', cache_control: { type: 'ephemeral' } });
  });

  it('no stable pins, no cache breakpoint', () => {
    const onlyMessage = [blocks[0] as ContextBlock, blocks[3] as ContextBlock];
    expect(toAnthropicContent(onlyMessage, { cacheControl: true }).some((block) => block.cache_control)).toBe(
      false,
    );
  });
});

describe('toAnthropicContent against the Anthropic SDK types', () => {
  it('type-checks as the SDK’s ContentBlockParam[] (media_type is the API’s union, not string)', () => {
    // A compile-time check: `npm run typecheck` fails if the shapes drift from @anthropic-ai/sdk.
    const content: Anthropic.Messages.ContentBlockParam[] = toAnthropicContent(blocks, {
      cacheControl: true,
    });
    const message: Anthropic.Messages.MessageParam = { role: 'user', content };
    expect(message.content).toHaveLength(7);
  });

  it('a part is rendered by its kind, not by its media type: an audio part typed image/png stays a placeholder', () => {
    const odd: ContextBlock = {
      kind: 'resource',
      text: 'clip',
      provenance: provenance('message', 'docs://clip'),
      parts: [{ kind: 'audio', uri: 'docs://clip', mimeType: 'image/png', data: 'AAAA', bytes: 3 }],
    };
    expect(toAnthropicContent([odd])).toEqual([
      { type: 'text', text: 'clip' },
      {
        type: 'text',
        text: '[audio docs://clip (image/png, 3 bytes) not sent: the Anthropic Messages API does not accept it]',
      },
    ]);
  });

  it('an image type the API refuses (SVG) becomes a visible placeholder, never an invalid image block', () => {
    const svg: ContextBlock = {
      kind: 'resource',
      text: 'logo',
      provenance: provenance('message', 'docs://logo'),
      parts: [
        { kind: 'image', uri: 'docs://logo.svg', mimeType: 'image/svg+xml', data: 'PHN2Zz4=', bytes: 5 },
      ],
    };
    expect(toAnthropicContent([svg])).toEqual([
      { type: 'text', text: 'logo' },
      {
        type: 'text',
        text: '[image docs://logo.svg (image/svg+xml, 5 bytes) not sent: the Anthropic Messages API does not accept it]',
      },
    ]);
  });
});
