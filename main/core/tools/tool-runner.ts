import type { JsonObject } from '../../../common/json.js';
import { runBuiltin } from './builtin-runner.js';
import { runCommand } from './command-runner.js';
import type { FetchLike } from '../net/redirects.js';
import { runHttp, type SecretSource } from './http-runner.js';
import { ToolFailure, type ToolRunner, type ToolSpec } from './tool-spec.js';
import { errorMessage } from '../../../common/error-message.js';
import type { Surface } from '../surface-words.js';

/** What {@link createToolRunner} needs. Keys come in through `secrets`; the runner never looks them up elsewhere. */
export interface ToolRunnerOptions {
  /** The workspace folder; file builtins and command tools are confined to it. Undefined: no workspace. */
  workspaceRoot: string | undefined;
  /** Resolves `{ secret: NAME }` headers of http tools (the keychain SecretStore in the app). */
  secrets: SecretSource;
  /** The fetch used by http tools and http_get. Default: global fetch. */
  fetch?: FetchLike;
  /** The clock of the `now` builtin. Default: the system clock. */
  now?: () => Date;
  /** Runs `mcp` tools (the workspace's or the run's MCP server manager). Undefined: mcp tools fail. */
  mcp?: McpToolCaller;
  /** Where the person reads failures: their advice names a command or a view (default `cli`). */
  surface?: Surface;
}

/** What the runner needs to call an MCP tool: the raw output text, or a ToolFailure. */
export interface McpToolCaller {
  callTool(server: string, tool: string, args: JsonObject, signal: AbortSignal, timeoutMs: number): Promise<string>;
}

/**
 * The ToolRunner for every kind: builtin, command, http and mcp. It runs already-approved calls and
 * never decides approval. Failures are ToolFailures whose message says what happened (exit code,
 * HTTP status, timeout) without the alias (the run engine adds it) and without secrets.
 */
export function createToolRunner(options: ToolRunnerOptions): ToolRunner {
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const now = options.now ?? (() => new Date());
  return {
    async run(tool: ToolSpec, args: JsonObject, signal: AbortSignal): Promise<string> {
      if (signal.aborted) throw new ToolFailure('cancelled before it started');
      try {
        return await runByKind(tool, args, signal);
      } catch (error) {
        if (error instanceof ToolFailure) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        throw new ToolFailure(`failed unexpectedly: ${code ?? errorMessage(error)}`);
      }
    },
  };

  function runByKind(tool: ToolSpec, args: JsonObject, signal: AbortSignal): Promise<string> {
    const settings = tool.settings;
    switch (settings.kind) {
      case 'builtin':
        return runBuiltin(settings.builtin, args, signal, {
          workspaceRoot: options.workspaceRoot,
          fetch: fetchImpl,
          now,
        });
      case 'command':
        return runCommand(options.workspaceRoot, settings, args, signal);
      case 'http':
        return runHttp(settings, args, signal, options.secrets, fetchImpl, options.surface);
      case 'mcp':
        if (!options.mcp) throw new ToolFailure(`MCP server "${settings.server}" is not available in this run`);
        return options.mcp.callTool(settings.server, settings.tool, args, signal, settings.timeoutMs);
      default:
        throw new ToolFailure(`tool kind "${(settings as { kind: string }).kind}" cannot run`);
    }
  }
}
