import { describe, expect, it } from 'vitest';
import { isUiResource } from '../../src/convert/ui-resource.js';

describe('isUiResource (MCP Apps, SEP-1865)', () => {
  it('a ui: URI is a UI resource whatever its type, in any case', () => {
    expect(isUiResource('ui://weather/app', undefined)).toBe(true);
    expect(isUiResource('UI://weather/app', 'text/plain')).toBe(true);
  });

  it('ui: counts only as the scheme, not inside a URI', () => {
    expect(isUiResource('x://ui://weather', undefined)).toBe(false);
    expect(isUiResource('docs://guide/ui:intro', 'text/markdown')).toBe(false);
  });

  it('text/html with profile=mcp-app is a UI resource at any URI', () => {
    expect(isUiResource('https://example.com/app', 'text/html;profile=mcp-app')).toBe(true);
    expect(isUiResource('https://example.com/app', 'Text/HTML; charset=utf-8; profile="mcp-app"')).toBe(true);
  });

  it('other HTML, other profiles and a missing type are content', () => {
    expect(isUiResource('https://example.com/page', 'text/html')).toBe(false);
    expect(isUiResource('https://example.com/page', 'text/html; profile=other')).toBe(false);
    expect(isUiResource('https://example.com/page', 'text/plain; profile=mcp-app')).toBe(false);
    expect(isUiResource('https://example.com/page', undefined)).toBe(false);
  });
});
