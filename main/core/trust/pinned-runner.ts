import { ToolFailure, type ToolRunner, type ToolSpec } from '../tools/tool-spec.js';
import { commandToolFiles, type ManifestFile } from './workspace-manifest.js';

/**
 * A trusted run's runner: a run keeps the manifest it started with, so a command tool runs only
 * while the workspace files it names (its script, a `--require`d module) still hold the bytes
 * they had when the run started. A file changed mid-run (an editor, `git pull`, another tool) is
 * refused, naming it; the workspace is restricted again until the person trusts what it is now.
 */
export function pinnedRunner(runner: ToolRunner, root: string, tools: readonly ToolSpec[]): ToolRunner {
  const pinned = new Map<string, ManifestFile[]>();
  for (const tool of tools) if (tool.settings.kind === 'command') pinned.set(tool.alias, commandToolFiles(root, tool));
  return {
    run(tool, args, signal) {
      const then = pinned.get(tool.alias);
      if (then && tool.settings.kind === 'command') {
        const now = new Map(commandToolFiles(root, tool).map((file) => [file.path, file.sha256]));
        const changed = then.filter((file) => now.get(file.path) !== file.sha256).map((file) => file.path);
        if (changed.length > 0)
          return Promise.reject(
            new ToolFailure(
              `${changed.join(', ')} changed since this run started, so the command does not run: the workspace is restricted again until you trust it as it is now, and a new run then uses the new ${changed.length === 1 ? 'file' : 'files'}`,
            ),
          );
      }
      return runner.run(tool, args, signal);
    },
  };
}
