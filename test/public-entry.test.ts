import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';

const sourceRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
// Static imports only: `await import(...)` is how Node-only transports are loaded on demand.
const staticImport = /^\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/gm;

/** Every module the root entry loads eagerly, following relative static imports. */
function staticGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const source = readFileSync(file, 'utf8');
    for (const [, specifier = ''] of source.matchAll(staticImport)) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else packages.add(specifier);
    }
  };
  visit(entry);
  return { files, packages };
}

describe('the root entry', () => {
  it('pulls in no CLI, SQLite, stdio transport or child_process', () => {
    const { files, packages } = staticGraph(resolve(sourceRoot, 'index.ts'));
    expect([...files].filter((file) => file.includes('/cli/') || file.includes('/integrations/'))).toEqual(
      [],
    );
    const forbidden = [...packages].filter((name) =>
      /child_process|better-sqlite3|^pg$|^ioredis$|client\/stdio|server\/stdio|cross-spawn|^ai$|^ai\/|^@ai-sdk\/|^@opentelemetry\//.test(
        name,
      ),
    );
    expect(forbidden).toEqual([]);
    expect(files.size).toBeGreaterThan(10);
  });
});

/** Every name an entry exports, types included, read from its source (re-exports by name only). */
function exportedNames(entry: string): string[] {
  const source = readFileSync(resolve(sourceRoot, `${entry}.ts`), 'utf8');
  const names: string[] = [];
  for (const [, list = ''] of source.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const item of list.split(',')) {
      const name = item.trim().replace(/^type\s+/, '');
      if (name) names.push(name);
    }
  }
  return names.sort();
}

// The public API, pinned name by name: a change here is a change to the API (CHANGELOG.md).
const publicApi: Record<string, readonly string[]> = {
  index: [
    'AccessPolicy',
    'AccessPolicyOptions',
    'Attachment',
    'AttachmentOptions',
    'AttachmentStore',
    'AttachmentTarget',
    'BlockProvenance',
    'BudgetOptions',
    'CacheStatus',
    'ContextBlock',
    'ContextError',
    'ContextErrorCode',
    'ContextErrorDetails',
    'InjectionTrace',
    'InstructionsEntry',
    'McpServerConfigInput',
    'McpServerRegistry',
    'McpServerRegistryOptions',
    'MediaPart',
    'MemoryAttachmentStore',
    'MessageAttachment',
    'ModelCapabilities',
    'OmittedContent',
    'PinCapOptions',
    'PinInput',
    'ProvideResult',
    'ResourceContextProvider',
    'ResourceContextProviderOptions',
    'Scope',
    'ScopeKind',
    'ServerStatus',
    'SharedCacheStatus',
    'SupersededAttachment',
    'Tokenizer',
    'TraceEntry',
    'TraceServer',
    'TraceStatus',
    'TruncationStrategyName',
    'Turn',
    'createTiktokenTokenizer',
    'renderText',
    'toAnthropicContent',
    'toOpenAIMessages',
  ],
  servers: [
    'AccessBinding',
    'AccessDecision',
    'AccessLimits',
    'AccessOperation',
    'AccessRequest',
    'ActiveTransport',
    'AggregateResourcesOptions',
    'AggregatedResource',
    'AggregatedResources',
    'CallOptions',
    'CappedReadResult',
    'CompleteRequest',
    'Completion',
    'ConnectionState',
    'ElicitResult',
    'ElicitationHandler',
    'ElicitationRequest',
    'EndpointPolicy',
    'EndpointPolicyOptions',
    'ListOptions',
    'McpServerConfig',
    'PolicyBoundServers',
    'Principal',
    'ProviderEvents',
    'ReadOptions',
    'ReadTruncation',
    'ReconnectOptions',
    'RegistryEvents',
    'ResourceSource',
    'Skill',
    'SkillLimits',
    'SkillLimitsInput',
    'SkillResource',
    'TruncatedContent',
    'aggregateResources',
    'checkEndpoint',
    'isRestrictedAddress',
    'readSkillFile',
    'resolveTargetUri',
    'skillsExtensionId',
  ],
  credentials: [
    'AuthConfig',
    'AuthConfigInput',
    'AuthorizationAnswer',
    'AuthorizationRequest',
    'CredentialFile',
    'CredentialFileOptions',
    'CredentialSource',
    'MemoryOAuthStore',
    'MtlsOptions',
    'OAuthAuthorizer',
    'OAuthRecordKind',
    'OAuthStore',
    'OAuthSubject',
    'SecretValue',
    'createMtlsFetch',
    'credentialFileOAuthStore',
    'credentialKeyEnv',
    'generateCredentialKey',
    'openCredentialFile',
    'writeCredentialFile',
  ],
  cache: [
    'CacheEvents',
    'CacheMetrics',
    'CacheRead',
    'CachedContent',
    'ContentCache',
    'ContentCacheOptions',
    'Invalidation',
    'ReadRequest',
    'SharedContent',
    'SharedKey',
    'SharedLookup',
    'SharedTier',
    'invalidateOnNotifications',
  ],
  budget: [
    'BoundedEncoding',
    'ClaudeCalibration',
    'ClaudeTokenizerCalibration',
    'ClaudeTokenizerOptions',
    'CutTarget',
    'GeminiTokenizerOptions',
    'HuggingFaceTokenizerOptions',
    'InstructionSource',
    'ModelFamily',
    'ModelTokenizersOptions',
    'ServerInstructions',
    'ServerInstructionsEntry',
    'ServerInstructionsOptions',
    'TiktokenTokenizerOptions',
    'TokenizerEncoding',
    'claudeCalibrationFor',
    'claudeCalibrationTable',
    'collectServerInstructions',
    'createClaudeTokenizer',
    'createGeminiTokenizer',
    'createHuggingFaceTokenizer',
    'encodingForModel',
    'modelFamilyOf',
    'serverInstructionsPreamble',
    'smallestUsefulCut',
  ],
  convert: [
    'Converter',
    'ConverterInput',
    'ConverterOutput',
    'ConverterRegistry',
    'JsonConverterOptions',
    'MediaKind',
    'MediaType',
    'createConverterRegistry',
    'createJsonConverter',
    'defaultConverters',
    'isUiResource',
    'parseMediaType',
  ],
  render: [
    'AnthropicContentBlock',
    'AnthropicImageMediaType',
    'OpenAIContentPart',
    'OpenAIMessage',
    'ToAnthropicContentOptions',
    'ToOpenAIMessagesOptions',
    'contextPreamble',
    'neutralizeText',
    'restoreText',
  ],
  prompts: [
    'PromptCommand',
    'PromptCommandOptions',
    'PromptCommandResult',
    'PromptSource',
    'RenderPromptOptions',
    'RenderedPromptContent',
    'RenderedPromptMessage',
    'parsePromptArguments',
    'parsePromptCommand',
    'renderPromptMessages',
    'runPromptCommand',
  ],
  tools: [
    'ExplorationTools',
    'ExplorationToolsOptions',
    'RenderedToolResult',
    'ResourceLink',
    'ToolDefinition',
    'ToolResult',
    'attachmentsFromLinks',
    'createExplorationTools',
    'renderToolResult',
  ],
  config: [
    'ContextConfig',
    'ParseContextConfigOptions',
    'ServiceSettings',
    'ServiceTenantSettings',
    'defaultServiceSettings',
    'loadContextConfig',
    'nearestKey',
    'parseContextConfig',
  ],
  audit: ['AuditActor', 'AuditRecord', 'AuditSink', 'AuditStatus', 'JsonlAuditSink', 'MemoryAuditSink'],
  sqlite: ['SqliteAttachmentStore', 'SqliteAttachmentStoreOptions'],
  postgres: ['PostgresAttachmentStore', 'PostgresAttachmentStoreOptions'],
  redis: ['RedisSharedTier', 'RedisSharedTierEvents', 'RedisSharedTierMetrics', 'RedisSharedTierOptions'],
  inspector: ['Inspector', 'InspectorOptions', 'ListeningInspector', 'createInspector', 'listenInspector'],
  opentelemetry: [
    'OpenTelemetryOptions',
    'Telemetry',
    'TelemetryAttributes',
    'TelemetrySpan',
    'openTelemetry',
  ],
};
const subpathEntries = Object.keys(publicApi).filter((entry) => entry !== 'index');

describe('the public entries', () => {
  it('the root entry exports the core and the data a turn takes and returns, nothing else', () => {
    expect(exportedNames('index')).toEqual([...(publicApi.index ?? [])].sort());
    // Its values: the four classes, the error, the tokenizer factory and the output adapters.
    expect(Object.keys(api).sort()).toEqual([
      'AccessPolicy',
      'ContextError',
      'McpServerRegistry',
      'MemoryAttachmentStore',
      'ResourceContextProvider',
      'createTiktokenTokenizer',
      'renderText',
      'toAnthropicContent',
      'toOpenAIMessages',
    ]);
  });

  it.each(Object.keys(publicApi).filter((entry) => entry !== 'index'))(
    'the %s entry exports exactly its pinned names',
    (entry) => {
      expect(exportedNames(entry)).toEqual([...(publicApi[entry] ?? [])].sort());
    },
  );

  it('every entry file is a subpath export of the package, and every subpath names a file', () => {
    const manifest = JSON.parse(readFileSync(resolve(sourceRoot, '../package.json'), 'utf8')) as {
      exports: Record<string, string | { types: string; import: string }>;
    };
    const entryFiles = Object.entries(manifest.exports)
      .filter(([, target]) => typeof target === 'object' && target.import.startsWith('./dist/src/'))
      .map(([, target]) => (target as { import: string }).import.replace('./dist/src/', 'src/'));
    for (const file of entryFiles) {
      expect(() => readFileSync(resolve(sourceRoot, '..', file.replace(/\.js$/, '.ts'))), file).not.toThrow();
    }
    for (const entry of subpathEntries) {
      expect(manifest.exports[`./${entry}`], entry).toEqual({
        types: `./dist/src/${entry}.d.ts`,
        import: `./dist/src/${entry}.js`,
      });
    }
  });

  it('no name is exported by two entries', () => {
    const seen = new Map<string, string>();
    for (const entry of ['index', ...subpathEntries]) {
      for (const name of exportedNames(entry)) {
        expect(seen.get(name), `${name} in ${entry}`).toBeUndefined();
        seen.set(name, entry);
      }
    }
  });
});
