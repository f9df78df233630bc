import type { McpServerSpec } from '../catalog/mcp-spec.js';
import { ToolFailure, type ToolRunner, type ToolSpec } from '../tools/tool-spec.js';
import { commandToolFiles, mcpServerFiles, type ManifestFile } from './runner-files.js';

/**
 * The workspace files a trusted run started with: each command tool's (its script, a `--require`d
 * module) and each stdio MCP server's, by their bytes when the run was prepared. A run keeps the
 * manifest it started with, so what changed since (an editor, `git pull`, another tool) does not
 * run: see {@link pinnedRunner} and {@link PinnedFiles.changedServer}.
 */
export class PinnedFiles {
  private readonly tools = new Map<string, ManifestFile[]>();
  private readonly servers = new Map<string, ManifestFile[]>();

  constructor(
    private readonly root: string,
    tools: readonly ToolSpec[],
    private readonly serverSpecs: readonly McpServerSpec[],
  ) {
    for (const tool of tools)
      if (tool.settings.kind === 'command') this.tools.set(tool.alias, commandToolFiles(root, tool));
    for (const server of serverSpecs) this.servers.set(server.name, mcpServerFiles(root, server));
  }

  /** The files of command tool `tool` that changed since the run started. */
  changedTool(tool: ToolSpec): string[] {
    const then = this.tools.get(tool.alias);
    return then ? changed(then, commandToolFiles(this.root, tool)) : [];
  }

  /** The files of MCP server `name` that changed since the run started. */
  changedServer(name: string): string[] {
    const then = this.servers.get(name);
    const spec = this.serverSpecs.find((server) => server.name === name);
    return then && spec ? changed(then, mcpServerFiles(this.root, spec)) : [];
  }
}

function changed(then: readonly ManifestFile[], now: readonly ManifestFile[]): string[] {
  const current = new Map(now.map((file) => [file.path, file.sha256]));
  return then.filter((file) => current.get(file.path) !== file.sha256).map((file) => file.path);
}

/** Why `files` changing stops what a trusted run would run. */
export function changedFilesRefusal(files: readonly string[], what: string): string {
  return `${files.join(', ')} changed since this run started, so ${what} does not run: the workspace is restricted again until you trust it as it is now, and a new run then uses the new ${files.length === 1 ? 'file' : 'files'}`;
}

/**
 * A trusted run's runner: a command tool runs only while its files hold the bytes they had when
 * the run started, and an MCP tool only while its server's do (a server restarted on a later call
 * would otherwise run new code). A changed file is refused, naming it.
 */
export function pinnedRunner(runner: ToolRunner, pinned: PinnedFiles): ToolRunner {
  return {
    run(tool, args, signal) {
      const settings = tool.settings;
      const files =
        settings.kind === 'command'
          ? pinned.changedTool(tool)
          : settings.kind === 'mcp'
            ? pinned.changedServer(settings.server)
            : [];
      if (files.length > 0)
        return Promise.reject(
          new ToolFailure(
            changedFilesRefusal(files, settings.kind === 'mcp' ? `MCP server "${settings.server}"` : 'the command'),
          ),
        );
      return runner.run(tool, args, signal);
    },
  };
}
