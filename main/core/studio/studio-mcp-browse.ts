/**
 * What the studio's explorer shows of an MCP server beyond its tools: its resources and prompts
 * (listed, read, got; the server's words shown as inert, untrusted text) and its sign-in (the
 * state, never a token; signing in through the person's browser; signing out once the person
 * says yes in main's own dialog). Changed listings are pushed, coalesced.
 */
import type { GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ContractEventName, ContractEventPayload } from '../../../common/contract.js';
import { errorMessage } from '../../../common/error-message.js';
import type { McpResourceContent } from '../../../common/mcp-contract.js';
import type { McpLoginStateView, McpPromptEntry, McpResourceEntry } from '../../../common/mcp-person.js';
import type { McpServerSpec } from '../catalog/mcp-spec.js';
import { MAX_MCP_MESSAGE_BYTES, MAX_MCP_OUTPUT_CHARS } from '../mcp/mcp-bounds.js';
import type { McpListChange, McpServerManager } from '../mcp/mcp-manager.js';
import { promptValue, resourceUriProblem } from '../mcp/mcp-read-values.js';
import type { Listed } from '../mcp/mcp-resources.js';
import { cleanServerText, shownText } from '../mcp/mcp-text.js';
import { ContractError } from './contract-error.js';
import type { PersonDialogs } from './person-dialogs.js';
import type { PersonPress } from './person-input.js';

/** How long changed listings are gathered before they are pushed: a server flooding notifications cannot flood the page. */
const LIST_CHANGE_COALESCE_MS = 100;
/** Updated resources told apart in one push; past that, one "resources changed" says it all. */
const MAX_UPDATED_URIS = 32;

/** One server of the open workspace, as the explorer's requests reach it. */
export interface BrowsedServer {
  manager: McpServerManager;
  spec: McpServerSpec;
  /** The workspace's folder (a `file:` resource must be inside it). */
  root: string;
}

/** What the browsing part needs from the studio service. */
export interface StudioMcpBrowseHost {
  emit: <E extends ContractEventName>(event: E, payload: ContractEventPayload<E>) => void;
  /** Server `name` of the open workspace; refuses a restricted workspace or a name tools.yaml lacks. */
  server(name: string): BrowsedServer;
  /** Opens a URL in the person's browser (checked by open-external.ts); absent where the host cannot. */
  openExternal?: ((url: string) => Promise<void>) | undefined;
  /** Main's own dialogs, each paid for by the person's press. */
  dialogs: PersonDialogs;
}

/** Bytes that a base64 text decodes to. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/**
 * A read resource as the studio shows it: each text content with the characters a person cannot
 * see drawn as escapes, each binary content described (never decoded). Refused past what a run
 * may read, naming the size.
 */
export function resourceView(result: ReadResourceResult): { contents: McpResourceContent[] } {
  const total = result.contents.reduce(
    (sum, content) => sum + ('text' in content && typeof content.text === 'string' ? content.text.length : 0),
    0,
  );
  if (total > MAX_MCP_OUTPUT_CHARS)
    throw new ContractError(
      'too-large',
      `the resource is ${total.toLocaleString('en')} characters, more than the ${MAX_MCP_OUTPUT_CHARS.toLocaleString('en')} the studio shows (a run may read at most as much)`,
    );
  return {
    contents: result.contents.map((content): McpResourceContent => {
      const common = {
        uri: shownText(content.uri, 500),
        ...(content.mimeType !== undefined && { mimeType: cleanServerText(content.mimeType, 100) }),
      };
      if ('text' in content && typeof content.text === 'string')
        return { kind: 'text', ...common, text: shownText(content.text, MAX_MCP_OUTPUT_CHARS) };
      const blob = 'blob' in content && typeof content.blob === 'string' ? content.blob : '';
      return { kind: 'binary', ...common, bytes: base64Bytes(blob) };
    }),
  };
}

/** A prompt as the studio shows it (the run's own reading of it, then escaped for the eye). */
export function promptView(result: GetPromptResult): {
  description?: string;
  messages: { role: string; text: string }[];
} {
  let value: ReturnType<typeof promptValue>;
  try {
    value = promptValue(result);
  } catch (error) {
    throw new ContractError('too-large', errorMessage(error));
  }
  return {
    ...(value.description !== undefined && { description: shownText(value.description, MAX_MCP_OUTPUT_CHARS) }),
    messages: value.messages.map((message) => ({
      role: cleanServerText(message.role, 40),
      text: shownText(message.content, MAX_MCP_OUTPUT_CHARS),
    })),
  };
}

export class StudioMcpBrowse {
  /** Sign-ins waiting for the browser, by server. */
  private readonly logins = new Map<string, AbortController>();
  /** Changes gathered for the next push, by server and what changed. */
  private gathered = new Map<string, McpListChange>();
  private flushScheduled = false;

  constructor(private readonly host: StudioMcpBrowseHost) {}

  async resources(name: string): Promise<Listed<McpResourceEntry>> {
    const { manager } = this.host.server(name);
    return this.served(name, 'list its resources', () => manager.listResources(name));
  }

  async prompts(name: string): Promise<Listed<McpPromptEntry>> {
    const { manager } = this.host.server(name);
    return this.served(name, 'list its prompts', () => manager.listPrompts(name));
  }

  async readResource(name: string, uri: string): Promise<{ contents: McpResourceContent[] }> {
    const { manager, spec, root } = this.host.server(name);
    const problem = resourceUriProblem(uri, root);
    if (problem !== undefined) throw new ContractError('invalid-uri', problem);
    // A resource its server lists as larger than any message the host takes is not asked for.
    const listed = (await manager.listResources(name).catch(() => undefined))?.entries.find(
      (entry) => entry.uri === uri && !entry.template,
    );
    if (listed?.size !== undefined && listed.size > MAX_MCP_MESSAGE_BYTES)
      throw new ContractError(
        'too-large',
        `the resource is ${listed.size.toLocaleString('en')} bytes (as its server lists it), more than the ${MAX_MCP_MESSAGE_BYTES.toLocaleString('en')} bytes the host reads in one message; it was not asked for`,
      );
    const result = await this.served(name, `read ${cleanServerText(uri, 200)}`, () =>
      manager.readResource(name, uri, { signal: new AbortController().signal, timeoutMs: spec.timeoutMs }),
    );
    return resourceView(result);
  }

  async getPrompt(name: string, prompt: string, args: Record<string, string>) {
    const { manager, spec } = this.host.server(name);
    const result = await this.served(name, `get the prompt "${cleanServerText(prompt, 200)}"`, () =>
      manager.getPrompt(name, prompt, args, { signal: new AbortController().signal, timeoutMs: spec.timeoutMs }),
    );
    return promptView(result);
  }

  async loginState(name: string): Promise<McpLoginStateView | null> {
    const { manager } = this.host.server(name);
    return (await manager.loginState(name)) ?? null;
  }

  /** Signs in with the person: main opens the sign-in page in their browser and waits for it to come back. */
  async login(name: string): Promise<McpLoginStateView> {
    const { manager } = this.host.server(name);
    const open = this.host.openExternal;
    if (!open)
      throw new ContractError('not-supported', 'this host cannot open a browser: sign in with promptforge mcp login');
    if (this.logins.has(name))
      throw new ContractError(
        'login-running',
        `a sign-in to "${name}" is already waiting for the browser: finish it there, or cancel it`,
      );
    const controller = new AbortController();
    this.logins.set(name, controller);
    try {
      return await manager.login(name, { openBrowser: (url) => open(url) }, { signal: controller.signal });
    } catch (error) {
      if (controller.signal.aborted) throw new ContractError('cancelled', `the sign-in to "${name}" was cancelled`);
      throw new ContractError('login-failed', errorMessage(error));
    } finally {
      this.logins.delete(name);
    }
  }

  cancelLogin(name: string): { cancelled: boolean } {
    const controller = this.logins.get(name);
    controller?.abort(new Error('cancelled in the studio'));
    return { cancelled: controller !== undefined };
  }

  /**
   * Forgets the sign-in (and stops the server) once the person says yes in main's own dialog,
   * paid for by the press that came with the call.
   */
  async logout(
    name: string,
    press: PersonPress,
  ): Promise<{ signedOut: boolean; state: McpLoginStateView | null; revoked: boolean; revokeProblem?: string }> {
    const { manager, spec } = this.host.server(name);
    const { dialogs } = this.host;
    if (!dialogs.canConfirm)
      throw new ContractError('not-supported', 'this host cannot ask you: sign out with promptforge mcp logout');
    const before = (await manager.loginState(name)) ?? null;
    if (!before) throw new ContractError('no-sign-in', `MCP server "${name}" does not sign in`);
    const url = spec.transport.type === 'http' ? spec.transport.url : before.resource;
    const yes = await dialogs.confirm(press, {
      title: `Sign out of MCP server "${name}"?`,
      message: `Sign out of ${url}?`,
      detail:
        'Its tokens are removed from the keychain, its authorization server is asked to revoke them, and the server stops. Every workspace that names this server URL uses the same sign-in, so each of them is signed out too. You can sign in again at any time.',
      confirm: 'Sign out',
    });
    if (!yes) return { signedOut: false, state: before, revoked: false };
    const outcome = await this.served(name, 'sign out', () => manager.logout(name));
    return {
      signedOut: outcome.removed,
      state: (await manager.loginState(name)) ?? null,
      revoked: outcome.revoked,
      ...(outcome.revokeProblem !== undefined && { revokeProblem: outcome.revokeProblem }),
    };
  }

  /** A server's listing changed: pushed to the page within {@link LIST_CHANGE_COALESCE_MS}, repeats merged. */
  listChanged(change: McpListChange): void {
    const updates = [...this.gathered.values()].filter(
      (entry) => entry.server === change.server && entry.what === 'resource-updated',
    );
    if (change.what === 'resource-updated' && updates.length >= MAX_UPDATED_URIS)
      change = { server: change.server, what: 'resources' };
    this.gathered.set(`${change.server}\u0000${change.what}\u0000${change.uri ?? ''}`, change);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setTimeout(() => {
      this.flushScheduled = false;
      const changes = [...this.gathered.values()];
      this.gathered = new Map();
      for (const entry of changes) this.host.emit('mcp-lists-changed', entry);
    }, LIST_CHANGE_COALESCE_MS).unref();
  }

  /** Stops waiting for every sign-in (the workspace closed or lost trust). */
  close(): void {
    for (const controller of this.logins.values()) controller.abort(new Error('the workspace was closed'));
  }

  /** Runs a request to server `name`, its failure told as `mcp-failed` naming the server. */
  private async served<T>(name: string, what: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (error instanceof ContractError) throw error;
      throw new ContractError('mcp-failed', `MCP server "${name}" could not ${what}: ${errorMessage(error)}`);
    }
  }
}
