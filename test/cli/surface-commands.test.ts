import { describe, expect, it, onTestFinished } from 'vitest';
import { startWorkspaceFixture } from '../../fixtures/index.js';
import { startCliWorkspace } from './support/cli-workspace.js';

/** The CLI workspace with the workspace fixture (over Streamable HTTP) configured as `workspace`. */
async function startWithWorkspace(options: { completions?: boolean } = {}) {
  const workspace = await startCliWorkspace();
  const fixture = await startWorkspaceFixture({ transport: 'http', ...options });
  onTestFinished(() => fixture.close());
  const url = (fixture.serverConfig as { url: string }).url;
  workspace.writeConfig({
    mcpServers: { gitnexus: { type: 'http', url: workspace.fixture.url }, workspace: { type: 'http', url } },
    bindings: { support: { servers: ['gitnexus', 'workspace'] } },
    budget: { maxTokens: 4000 },
  });
  return workspace;
}

const issueTemplate = 'workspace://project/{project}/issue/{issue}';

describe('mcp-context complete', () => {
  it('prints the candidates for a template argument, one per line', async () => {
    const workspace = await startWithWorkspace();
    const result = await workspace.run(['complete', 'workspace', issueTemplate, 'project', 'a']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('atlas\napollo\nartemis\n');
  });

  it('takes the arguments already chosen as key=value context, and prompts as well as templates', async () => {
    const workspace = await startWithWorkspace();
    const issues = await workspace.runJson<{ values: string[] }>([
      'complete',
      'workspace',
      issueTemplate,
      'issue',
      '',
      'project=apollo',
    ]);
    expect(issues.json.values).toEqual(['7', '8']);
    const projects = await workspace.run(['complete', 'workspace', 'triage', 'project', 'ze']);
    expect(projects.stdout).toBe('zephyr\n');
  });

  it('fails with exit 1 and says so when the server does not declare completions', async () => {
    const workspace = await startWithWorkspace({ completions: false });
    const result = await workspace.run(['complete', 'workspace', 'triage', 'project']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('does not declare completions');
  });
});

describe('mcp-context pin add with a template', () => {
  it('a missing argument fails with exit 2 and prints the server’s candidates for it', async () => {
    const workspace = await startWithWorkspace();
    const result = await workspace.run([
      'pin',
      'add',
      '--conversation',
      'c-1',
      'workspace',
      issueTemplate,
      'project=atlas',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('needs argument(s) issue');
    expect(result.stderr).toContain('candidates for issue: 101, 102, 117');
  });

  it('an argument the template does not have is refused with exit 2', async () => {
    const workspace = await startWithWorkspace();
    const result = await workspace.run([
      'pin',
      'add',
      '--conversation',
      'c-1',
      'workspace',
      issueTemplate,
      'project=atlas',
      'issue=101',
      'priority=high',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('has no argument(s) priority (it takes project, issue)');
  });
});

describe('mcp-context listings show titles, icons, sizes and audiences', () => {
  it('resources: title beside the name, and size, audience, modified and icon columns', async () => {
    const workspace = await startWithWorkspace();
    const result = await workspace.run(['resources', 'workspace']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^uri\s+mime\s+name\s+size\s+for\s+modified\s+icon\s+description$/);
    expect(result.stdout).toMatch(
      /^workspace:\/\/guide\s+text\/markdown\s+Workspace guide \(guide\)\s+\d+ B\s+assistant\+user\s+2026-11-02T09:30:00Z\s+https:\/\/workspace\.invalid\/icons\/guide\.svg\s+How the workspace/m,
    );
    expect(result.stdout).toMatch(
      /^workspace:\/\/logs\/huge\s+text\/plain\s+Build log \(huge-log\)\s+47\.7 MiB/m,
    );
  });

  it('templates and prompts show their titles', async () => {
    const workspace = await startWithWorkspace();
    const templates = await workspace.run(['templates', 'workspace']);
    expect(templates.stdout).toContain('Project issue (issue)');
    const prompts = await workspace.run(['prompts', 'workspace']);
    expect(prompts.stdout).toMatch(/^Triage a project \(triage\)\s+project\s+Open issues/m);
  });
});

describe('mcp-context skills', () => {
  it('lists each skill with its file count and total size; a dynamic one says so', async () => {
    const workspace = await startWithWorkspace();
    const result = await workspace.run(['skills', 'workspace']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^uri\s+name\s+files\s+bytes\s+description$/m);
    expect(result.stdout).toMatch(
      /^skill:\/\/git-workflow\/SKILL\.md\s+git-workflow\s+2\s+\d+\s+Follow this team/m,
    );
    expect(result.stdout).toMatch(/^skill:\/\/reports\/daily\/SKILL\.md\s+daily\s+dynamic\s+-\s+/m);
  });
});
