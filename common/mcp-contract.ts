/**
 * The contract's rows for what MCP servers ask of the person and offer beyond tools: their
 * questions (elicitation, sampling), their resources and prompts, and their sign-in. Spread into
 * the tables of common/contract.ts, the one contract.
 *
 * @module
 */
import { z } from 'zod';
import {
  ElicitationAnswerSchema,
  McpLoginStateSchema,
  McpPromptEntrySchema,
  McpResourceEntrySchema,
  PendingElicitationSchema,
  PendingSamplingSchema,
  SamplingDecisionSchema,
} from './mcp-person.js';
import { ArgumentsVerdictSchema } from './studio-schemas.js';

/** The catalog's name for a server (tools.yaml). */
const server = z.string().min(1).max(200);
/** The id of a question waiting for the person (`elicitation-N`, `sampling-N`). */
const questionId = z.string().min(1).max(100);

/** One content of a resource as the studio shows it: text (the server's, untrusted), or binary described. */
const McpResourceContentSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('text'), uri: z.string(), mimeType: z.string().optional(), text: z.string() }),
  z.object({
    kind: z.literal('binary'),
    uri: z.string(),
    mimeType: z.string().optional(),
    /** Its size decoded; it is never decoded into text. */
    bytes: z.number().int().nonnegative(),
  }),
]);

/** A server's listing as the explorer shows it: the entries kept, and how many it listed beyond them. */
const listing = <T extends z.ZodType>(entry: T) =>
  z.object({ entries: z.array(entry), dropped: z.number().int().nonnegative() });

/** A question of one of the servers has come, or is no longer waiting (answered, withdrawn). */
const questionResolved = z.object({ id: questionId, runId: z.string() });

export const mcpContractMethods = {
  /** The servers' questions waiting for the person (after a reload): forms and URLs, and sampling requests. */
  'mcp:questions': {
    request: z.strictObject({}),
    response: z.object({ elicitations: z.array(PendingElicitationSchema), samplings: z.array(PendingSamplingSchema) }),
  },
  /**
   * The core's verdict on an answer to a waiting form, while the person fills it in: each problem
   * points at its field (`/name`). The same check the answer meets when it is sent.
   */
  'mcp:check-answer': {
    request: z.strictObject({ id: questionId, content: z.record(z.string(), z.json()) }),
    response: ArgumentsVerdictSchema,
  },
  /**
   * The person's answer to a server's elicitation: accept (a form's values; in URL mode, main
   * opens the URL in the system browser first), decline or cancel. Served only right after the
   * person's own click or key press; refused with `invalid-answer` when the values do not fit
   * the form (the question stays), `not-found` when it is no longer waiting.
   */
  'mcp:answer': {
    request: z.strictObject({ id: questionId, answer: ElicitationAnswerSchema }),
    response: z.object({ ok: z.literal(true) }),
  },
  /**
   * The person's decision on a server's sampling request: approve, approve with edited messages
   * or limit, or deny with a reason. Served only right after the person's own click or key press.
   */
  'mcp:decide-sampling': {
    request: z.strictObject({ id: questionId, decision: SamplingDecisionSchema }),
    response: z.object({ ok: z.literal(true) }),
  },
  /** A server's resources and resource templates (starts it when needed). */
  'mcp:resources': { request: z.strictObject({ server }), response: listing(McpResourceEntrySchema) },
  /** A server's prompts (starts it when needed). */
  'mcp:prompts': { request: z.strictObject({ server }), response: listing(McpPromptEntrySchema) },
  /**
   * Reads one resource: each text content (the server's, untrusted) and each binary one described.
   * Refused with `too-large` (naming the size) past what a run may read, `invalid-uri` for a
   * `file:` URI outside the workspace, `mcp-failed` when the server fails it.
   */
  'mcp:read-resource': {
    request: z.strictObject({ server, uri: z.string().min(1).max(4096) }),
    response: z.object({ contents: z.array(McpResourceContentSchema) }),
  },
  /** Gets one prompt with its arguments: its description and messages (the server's, untrusted). */
  'mcp:get-prompt': {
    request: z.strictObject({
      server,
      name: z.string().min(1).max(4096),
      arguments: z.record(z.string().max(200), z.string().max(64 * 1024)),
    }),
    response: z.object({
      description: z.string().optional(),
      messages: z.array(z.object({ role: z.string(), text: z.string() })),
    }),
  },
  /** A server's sign-in (never a token); `null` for a server that does not sign in (stdio, or a header in tools.yaml). */
  'mcp:login-state': { request: z.strictObject({ server }), response: McpLoginStateSchema.nullable() },
  /**
   * Signs in to a server: main opens the authorization page in the system browser and waits (at
   * most 5 minutes) for it to come back to 127.0.0.1. Served only right after the person's own
   * click or key press; `mcp:cancel-login` ends the wait.
   */
  'mcp:login': { request: z.strictObject({ server }), response: McpLoginStateSchema },
  /** Stops waiting for a sign-in in progress; `cancelled` is false when none was. */
  'mcp:cancel-login': { request: z.strictObject({ server }), response: z.object({ cancelled: z.boolean() }) },
  /**
   * Forgets a server's sign-in (its tokens in the keychain) and stops it, once the person says yes
   * in main's own dialog, then asks its authorization server to revoke the tokens (RFC 7009):
   * `revoked` when it accepted them all, else `revokeProblem` says what it was not told and why.
   * Served only right after the person's own click or key press.
   */
  'mcp:logout': {
    request: z.strictObject({ server }),
    response: z.object({
      signedOut: z.boolean(),
      state: McpLoginStateSchema.nullable(),
      revoked: z.boolean(),
      revokeProblem: z.string().optional(),
    }),
  },
} as const satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;

export const mcpContractEvents = {
  /** A server asks the person something through a form or a URL (during a run's call to it). */
  'elicitation-pending': PendingElicitationSchema,
  /** An elicitation is no longer waiting: answered, or withdrawn (its call ended). */
  'elicitation-resolved': questionResolved,
  /** A server asks for a model round (during a run's call to it); the person approves, edits or denies. */
  'sampling-pending': PendingSamplingSchema,
  /** A sampling request is no longer waiting: decided, or withdrawn (its call ended). */
  'sampling-resolved': questionResolved,
  /** A server's resources or prompts changed (`list_changed`), or a resource was updated (`resources/updated`). */
  'mcp-lists-changed': z.object({
    server: z.string(),
    what: z.enum(['resources', 'prompts', 'resource-updated']),
    uri: z.string().optional(),
  }),
} as const satisfies Record<string, z.ZodType>;

export type McpResourceContent = z.infer<typeof McpResourceContentSchema>;
