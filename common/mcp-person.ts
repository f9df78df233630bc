import { z } from 'zod';

/**
 * What an MCP server asks of the person, as the studio and the terminal show it, and what the
 * person answers: elicitation (a form or a URL), sampling (a model round the server wants), and a
 * server's sign-in state and listings. The core builds these (main/core/mcp); every text in them
 * that the server wrote is the server's, shown as untrusted.
 */

export { MAX_SAMPLING_TOKENS } from './mcp-sampling-limit.js';

/** Who answered: the studio, the terminal, or the host itself (declined: nobody to ask, a bound, a policy). */
export const PersonSourceSchema = z.enum(['studio', 'cli-prompt', 'policy']);

/** One option of a choice field. */
const ElicitationOptionSchema = z.object({ value: z.string(), title: z.string() });

/** One field of an elicitation form, from the server's requested schema (flat: strings, numbers, booleans, choices). */
const ElicitationFieldSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('string'),
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    required: z.boolean(),
    minLength: z.number().int().nonnegative().optional(),
    maxLength: z.number().int().nonnegative().optional(),
    format: z.enum(['email', 'uri', 'date', 'date-time']).optional(),
    default: z.string().optional(),
  }),
  z.object({
    kind: z.literal('number'),
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    required: z.boolean(),
    integer: z.boolean(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    default: z.number().optional(),
  }),
  z.object({
    kind: z.literal('boolean'),
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    required: z.boolean(),
    default: z.boolean().optional(),
  }),
  z.object({
    kind: z.literal('choice'),
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    required: z.boolean(),
    options: z.array(ElicitationOptionSchema),
    default: z.string().optional(),
  }),
  z.object({
    kind: z.literal('choices'),
    name: z.string(),
    title: z.string().optional(),
    description: z.string().optional(),
    required: z.boolean(),
    options: z.array(ElicitationOptionSchema),
    minItems: z.number().int().nonnegative().optional(),
    maxItems: z.number().int().nonnegative().optional(),
    default: z.array(z.string()).optional(),
  }),
]);

/** An elicitation waiting for the person. */
export const PendingElicitationSchema = z.object({
  /** `elicitation-N`, unique in the host. */
  id: z.string(),
  runId: z.string(),
  /** The catalog's name for the server (never the server's own). */
  server: z.string(),
  /** The run's tool call (or read) in flight that the request came with. */
  callId: z.string().optional(),
  alias: z.string().optional(),
  mode: z.enum(['form', 'url']),
  /** The server's words: untrusted, control and direction characters removed, cut. */
  message: z.string(),
  fields: z.array(ElicitationFieldSchema).optional(),
  /** URL mode: where the server asks the person to go (https, or http on this machine only). */
  url: z.string().optional(),
  /** URL mode: the URL's host, to show next to it. */
  urlHost: z.string().optional(),
  askedAt: z.string(),
});

/** The person's answer to an elicitation; `content` is checked against the form (missing fields take their defaults). */
export const ElicitationAnswerSchema = z.discriminatedUnion('action', [
  z.object({
    action: z.literal('accept'),
    content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
  }),
  z.object({ action: z.literal('decline') }),
  z.object({ action: z.literal('cancel') }),
]);

/** One message of a sampling request, as text. */
const SamplingMessageViewSchema = z.object({ role: z.enum(['user', 'assistant']), text: z.string() });

/** A sampling request waiting for the person's approval. */
export const PendingSamplingSchema = z.object({
  /** `sampling-N`, unique in the host. */
  id: z.string(),
  runId: z.string(),
  server: z.string(),
  callId: z.string().optional(),
  alias: z.string().optional(),
  /** The server's messages (untrusted), as text. */
  messages: z.array(SamplingMessageViewSchema),
  /** The server's system prompt (untrusted), if it sent one. */
  systemPrompt: z.string().optional(),
  /** The run's model that would answer. */
  model: z.object({ alias: z.string(), provider: z.string(), modelId: z.string() }),
  /** The token limit that would be used. */
  maxTokens: z.number().int().positive(),
  /** What the server asked for, when it was more than the host allows (then clamped to `maxTokens`). */
  requestedMaxTokens: z.number().int().optional(),
  temperature: z.number().optional(),
  askedAt: z.string(),
});

/** The person's decision on a sampling request. An edit replaces the messages (the person's words then) or the limit. */
export const SamplingDecisionSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('approve') }),
  z.object({
    kind: z.literal('approve-edited'),
    messages: z.array(SamplingMessageViewSchema).min(1).optional(),
    systemPrompt: z.string().optional(),
    maxTokens: z.number().int().positive().optional(),
  }),
  z.object({ kind: z.literal('deny'), reason: z.string() }),
]);

/** A server's sign-in, as shown: never a token. */
export const McpLoginStateSchema = z.object({
  server: z.string(),
  resource: z.string(),
  state: z.enum(['signed-in', 'expired', 'signed-out', 'unavailable']),
  issuer: z.string().optional(),
  account: z.string().optional(),
  scopes: z.array(z.string()).optional(),
  expiresAt: z.string().optional(),
  refreshable: z.boolean().optional(),
  error: z.string().optional(),
});

/** One resource or resource template a server lists (the server's words, cleaned). */
export const McpResourceEntrySchema = z.object({
  uri: z.string(),
  /** Set for a template (`uriTemplate`), whose `uri` is the template. */
  template: z.boolean().optional(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  size: z.number().optional(),
});

/** One prompt a server lists. */
export const McpPromptEntrySchema = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z.array(z.object({ name: z.string(), description: z.string().optional(), required: z.boolean() })),
});

export type PersonSource = z.infer<typeof PersonSourceSchema>;
export type ElicitationField = z.infer<typeof ElicitationFieldSchema>;
export type PendingElicitation = z.infer<typeof PendingElicitationSchema>;
export type ElicitationAnswer = z.infer<typeof ElicitationAnswerSchema>;
export type SamplingMessageView = z.infer<typeof SamplingMessageViewSchema>;
export type PendingSampling = z.infer<typeof PendingSamplingSchema>;
export type SamplingDecision = z.infer<typeof SamplingDecisionSchema>;
export type McpLoginStateView = z.infer<typeof McpLoginStateSchema>;
export type McpResourceEntry = z.infer<typeof McpResourceEntrySchema>;
export type McpPromptEntry = z.infer<typeof McpPromptEntrySchema>;
