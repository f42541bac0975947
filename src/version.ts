/**
 * This package's version, as package.json gives it (a test keeps them equal): what
 * `mcp-context --version` prints and the MCP client reports in `initialize`, without reading
 * package.json at run time (the built files do not always sit beside it).
 */
export const packageVersion = '0.2.0';
