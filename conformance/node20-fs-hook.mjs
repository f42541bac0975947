// Loader hook for Node 20: @modelcontextprotocol/conformance imports `fs.globSync` by name
// (Node >= 22), used only by its tier-check command. For that package alone, `fs` resolves to
// node:fs plus a stub that says so.
const shim = new URL('./node20-fs-shim.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'fs' && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
    return { url: shim, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
