import { describe, expect, it } from 'vitest';
import { renderText } from '../../src/render/render-text.js';
import { toOpenAIMessages } from '../../src/render/to-openai-messages.js';
import type { ContextBlock } from '../../src/types.js';

const provenance = {
  scope: 'pipeline' as const,
  server: 'docs',
  uri: 'docs://logo.png',
  mimeType: 'image/png',
  sha256: 'a'.repeat(64),
  truncated: false,
};

const blocks: ContextBlock[] = [
  { kind: 'preamble', text: 'PREAMBLE\n\n' },
  {
    kind: 'resource',
    text: '<frame a>\n',
    provenance: { ...provenance, uri: 'docs://a', mimeType: 'text/plain' },
  },
  {
    kind: 'resource',
    text: '<frame logo>\n',
    provenance,
    parts: [
      { kind: 'image', uri: 'docs://logo.png', mimeType: 'image/png', data: 'iVBORw==', bytes: 4 },
      { kind: 'document', uri: 'docs://spec.pdf', mimeType: 'application/pdf', data: 'JVBERi0=', bytes: 5 },
      { kind: 'audio', uri: 'docs://hello.wav', mimeType: 'audio/wav', data: 'UklGRg==', bytes: 4 },
      { kind: 'audio', uri: 'docs://hello.ogg', mimeType: 'audio/ogg', data: 'T2dnUw==', bytes: 4 },
    ],
  },
];

describe('toOpenAIMessages', () => {
  it('one user message: the rendered text, then each part after the block naming it', () => {
    const messages = toOpenAIMessages(blocks, { imageDetail: 'low' });
    expect(messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'PREAMBLE\n\n<frame a>\n<frame logo>\n' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw==', detail: 'low' } },
          { type: 'file', file: { filename: 'spec.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
          { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
          {
            type: 'text',
            text: '[audio docs://hello.ogg (audio/ogg, 4 bytes) not sent: OpenAI Chat Completions (wav and mp3 only) does not accept it]',
          },
        ],
      },
    ]);
  });

  it('as a system message the text is exactly renderText(blocks); media follow in a user message', () => {
    const [system, user] = toOpenAIMessages(blocks, { role: 'system' });
    expect(system).toEqual({ role: 'system', content: renderText(blocks) });
    expect(user).toEqual({
      role: 'user',
      content: [
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw==' } },
        { type: 'file', file: { filename: 'spec.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
        { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
        {
          type: 'text',
          text: '[audio docs://hello.ogg (audio/ogg, 4 bytes) not sent: OpenAI Chat Completions (wav and mp3 only) does not accept it]',
        },
      ],
    });
  });

  it('as a developer message without media, there is no user message at all', () => {
    const textOnly = blocks.slice(0, 2);
    expect(toOpenAIMessages(textOnly, { role: 'developer' })).toEqual([
      { role: 'developer', content: 'PREAMBLE\n\n<frame a>\n' },
    ]);
  });

  it('mp3 audio is input_audio in mp3 format; an image without imageDetail has no detail', () => {
    const [message] = toOpenAIMessages([
      {
        kind: 'resource',
        text: 'T',
        provenance,
        parts: [
          { kind: 'audio', uri: 'docs://a.mp3', mimeType: 'audio/mpeg', data: 'SUQz', bytes: 3 },
          { kind: 'image', uri: 'docs://b.png', mimeType: 'image/png', data: 'iVBORw==', bytes: 4 },
        ],
      },
      { kind: 'resource', text: 'U', provenance },
    ]);
    expect(message).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'T' },
        { type: 'input_audio', input_audio: { data: 'SUQz', format: 'mp3' } },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw==' } },
        { type: 'text', text: 'U' },
      ],
    });
  });

  it('no blocks, no messages', () => {
    expect(toOpenAIMessages([])).toEqual([]);
  });
});
