/**
 * The client's side of requests a server sends: `elicitation/create` and `sampling/createMessage`
 * go to the person of the one run with a call in flight (or are declined), `roots/list` answers
 * the workspace's root and nothing above it.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import {
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { checkElicitation } from './mcp-elicitation.js';
import { checkSampling } from './mcp-sampling.js';
import { DECLINED_CODE, type InFlightCalls } from './mcp-session.js';

/** What the host tells every server it offers: forms and URLs through the person, sampling under approval, one root. */
export const CLIENT_CAPABILITIES: ClientCapabilities = {
  elicitation: { form: { applyDefaults: true }, url: {} },
  sampling: {},
  roots: { listChanged: false },
};

/** Questions of one server that may wait for the person at once; more are declined at once. */
export const MAX_QUESTIONS_PER_SERVER = 4;

export interface ServerRequestContext {
  /** The catalog's name for the server. */
  server: string;
  workspaceRoot: string;
  inFlight: InFlightCalls;
  /** A line for the server's stderr tail (what the host declined, when no run can record it). */
  note(text: string): void;
}

/** The workspace's root as a `file:` URI (its real path when it has one). */
function workspaceRootUri(root: string): string {
  let real = root;
  try {
    real = realpathSync.native(root);
  } catch {
    // A root that cannot be resolved is given as it is.
  }
  return pathToFileURL(real).href;
}

/** Installs the handlers of server requests on `client` (before it connects). */
export function installServerRequestHandlers(client: Client, context: ServerRequestContext): void {
  let waiting = 0;
  const { server } = context;

  client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    const route = context.inFlight.route();
    if (!route.ok) {
      context.note(`[promptforge] declined an elicitation: ${route.reason}\n`);
      return { action: 'decline' };
    }
    const checked = checkElicitation(request.params);
    if (!checked.ok) {
      route.session.refused('elicitation', server, route.call, checked.problem);
      throw new McpError(ErrorCode.InvalidParams, `the host refused the elicitation: ${checked.problem}`);
    }
    if (waiting >= MAX_QUESTIONS_PER_SERVER) {
      route.session.refused(
        'elicitation',
        server,
        route.call,
        `${MAX_QUESTIONS_PER_SERVER} questions of this server already wait for the person; declined`,
      );
      return { action: 'decline' };
    }
    waiting += 1;
    try {
      return await route.session.elicit(
        { server, call: route.call, request: checked.request },
        AbortSignal.any([extra.signal, route.ended]),
      );
    } finally {
      waiting -= 1;
    }
  });

  client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
    const route = context.inFlight.route();
    if (!route.ok) {
      context.note(`[promptforge] declined a sampling request: ${route.reason}\n`);
      throw new McpError(DECLINED_CODE, `the host declined the sampling request: ${route.reason}`);
    }
    const checked = checkSampling(request.params);
    if (!checked.ok) {
      route.session.refused('sampling', server, route.call, checked.problem);
      throw new McpError(ErrorCode.InvalidParams, `the host refused the sampling request: ${checked.problem}`);
    }
    if (waiting >= MAX_QUESTIONS_PER_SERVER) {
      const reason = `${MAX_QUESTIONS_PER_SERVER} questions of this server already wait for the person`;
      route.session.refused('sampling', server, route.call, `${reason}; declined`);
      throw new McpError(DECLINED_CODE, `the host declined the sampling request: ${reason}`);
    }
    waiting += 1;
    try {
      return await route.session.sample(
        { server, call: route.call, request: checked.request },
        AbortSignal.any([extra.signal, route.ended]),
      );
    } finally {
      waiting -= 1;
    }
  });

  const root = workspaceRootUri(context.workspaceRoot);
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: root, name: 'workspace' }] }));
  // A URL elicitation the server says is complete needs nothing more from the host.
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, () => undefined);
}
