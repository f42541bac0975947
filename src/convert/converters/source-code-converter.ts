import type { Converter } from '../converter.js';

// Media type → fence language. Servers rarely agree on code media types, so the URI's extension
// is the other way in (see `extensions`).
const languageByMediaType: Readonly<Record<string, string>> = {
  'application/javascript': 'javascript',
  'text/javascript': 'javascript',
  'application/ecmascript': 'javascript',
  'application/typescript': 'typescript',
  'text/typescript': 'typescript',
  'text/x-typescript': 'typescript',
  'text/x-python': 'python',
  'application/x-python': 'python',
  'text/x-java': 'java',
  'text/x-java-source': 'java',
  'text/x-c': 'c',
  'text/x-c++': 'cpp',
  'text/x-csharp': 'csharp',
  'text/x-go': 'go',
  'text/x-rust': 'rust',
  'text/x-ruby': 'ruby',
  'text/x-php': 'php',
  'text/x-kotlin': 'kotlin',
  'text/x-swift': 'swift',
  'text/x-scala': 'scala',
  'application/x-sh': 'bash',
  'text/x-shellscript': 'bash',
  'application/sql': 'sql',
  'text/x-sql': 'sql',
  'application/graphql': 'graphql',
  'text/css': 'css',
};

const languageByExtension: Readonly<Record<string, string>> = {
  ts: 'typescript',
  tsx: 'tsx',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  jsx: 'jsx',
  mjs: 'javascript',
  cjs: 'javascript',
  py: 'python',
  rb: 'ruby',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  swift: 'swift',
  scala: 'scala',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  php: 'php',
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
  sql: 'sql',
  css: 'css',
  scss: 'scss',
  graphql: 'graphql',
  gql: 'graphql',
  vue: 'vue',
  svelte: 'svelte',
  lua: 'lua',
  dart: 'dart',
  ex: 'elixir',
  exs: 'elixir',
};

/** Source code, fenced with its language; the fence is longer than any backtick run inside. */
export const sourceCodeConverter: Converter = {
  name: 'source-code',
  mediaTypes: Object.keys(languageByMediaType),
  extensions: Object.keys(languageByExtension),
  input: 'text',
  convert: ({ text = '', mediaType, uri }) => {
    const language =
      (mediaType && languageByMediaType[mediaType.essence]) ?? languageByExtension[extensionOf(uri)] ?? '';
    let longestRun = 2;
    for (const match of text.matchAll(/`{3,}/g)) longestRun = Math.max(longestRun, match[0].length);
    const fence = '`'.repeat(longestRun + 1);
    return { kind: 'text', text: `${fence}${language}\n${text}\n${fence}`, pinnedLines: 1 };
  },
};

/** The lower-cased extension of a URI's last path segment, without query or fragment; '' if none. */
export function extensionOf(uri: string): string {
  const path = uri.replace(/[?#].*$/s, '');
  const segment = path.slice(path.lastIndexOf('/') + 1);
  const dot = segment.lastIndexOf('.');
  return dot > 0 ? segment.slice(dot + 1).toLowerCase() : '';
}
