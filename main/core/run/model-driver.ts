import { isPlainObject, type JsonObject, type JsonValue } from '../../../common/json.js';
import type { RunEventBody, Usage } from '../../../common/run-events.js';
import {
  ProviderError,
  type ChatMessage,
  type ModelProvider,
  type ModelRequest,
  type ToolCallRecord,
  type ToolDefinition,
} from '../providers/model-provider.js';
import { costOf, type TokenPrice } from '../providers/cost.js';
import type { PriceSource } from '../providers/price-table.js';
import { RunLimitError } from './run-errors.js';
import type { ToolCatalog } from '../tools/tool-spec.js';
import { canonicalJson } from './canonical-json.js';
import { FatalRunError, ScriptError } from './run-errors.js';
import { nestingDepth } from '../../../common/json.js';
import { MAX_LUA_DEPTH } from './worker-protocol.js';
import { errorMessage } from '../../../common/error-message.js';
import { guessName, shownName } from '../did-you-mean.js';

/**
 * The deepest arguments a requested call may carry to the script: the reply wraps them in three
 * levels (result, tool_calls, the call), and the whole reply may nest at most MAX_LUA_DEPTH.
 */
const MAX_ARGUMENT_DEPTH = MAX_LUA_DEPTH - 3;

/** Prices per million tokens (models.yaml's `price:`, else the price table), with where they came from. */
type ModelPrice = TokenPrice & { source?: PriceSource };

/** The run's spending cap: the round that reaches it ends the run (docs/host-api.md#limits-and-stopping). */
export interface SpendingCap {
  /** Tokens, input and output, of every round. */
  maxTokens?: number;
  /** US dollars, at each round's price. */
  maxCost?: number;
}

/** A model alias resolved to a provider adapter, with its catalog defaults. */
export interface ResolvedModel {
  alias: string;
  providerId: string;
  modelId: string;
  provider: ModelProvider;
  defaults?: { temperature?: number; maxTokens?: number };
  price?: ModelPrice;
}

/**
 * Resolves `opts.model` (or the default when undefined), looking up the provider key on first use.
 * Rejects with an Error naming an unknown alias or saying how to set a missing key.
 */
export interface ModelResolver {
  resolve(alias: string | undefined): Promise<ResolvedModel>;
}

/** What `models.chat` returns to Lua (snake_case, as the guide shows). */
export interface LuaChatResult {
  content: string;
  tool_calls?: LuaToolCall[];
  usage: { input_tokens: number; output_tokens: number; total_tokens: number };
  finish_reason: string;
  /** The provider's own finish reason when it adds detail (e.g. Gemini `SAFETY`). */
  provider_finish_reason?: string;
  model: string;
}

/**
 * One requested call as the script sees it. When the provider's argument text is not a JSON object,
 * `arguments` is nil, `error` says why and `raw_arguments` holds the text: an error field on that
 * call rather than an error, so the rest of the round stays usable (docs/host-api.md).
 */
interface LuaToolCall {
  id: string;
  name: string;
  arguments?: JsonObject;
  error?: string;
  raw_arguments?: string;
}

const KNOWN_ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** Lua's empty table arrives as `{}`; as a list it means "empty". */
function asList(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (isPlainObject(value) && Object.keys(value).length === 0) return [];
  return undefined;
}

/** Alias + arguments with sorted keys: equal for the same call however its keys are ordered. */
function claimKey(alias: string, args: JsonObject): string {
  return `${alias}\u0000${canonicalJson(args)}`;
}

/** Parses a provider's argument text: empty means `{}`; anything but a JSON object is an error. */
function parseToolArguments(raw: string): { value?: JsonObject; error?: string } {
  if (raw.trim() === '') return { value: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    return { error: `the model sent arguments that are not valid JSON (${errorMessage(error)})` };
  }
  if (!isPlainObject(parsed)) return { error: 'the model sent arguments that are not a JSON object' };
  if (nestingDepth(parsed, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH)
    return { error: `the model sent arguments nested deeper than ${MAX_ARGUMENT_DEPTH} levels` };
  return { value: parsed as JsonObject };
}

/**
 * The driver behind `models.chat`: validates the script's messages and options, fills id-only
 * replayed tool calls from its own record, runs one provider round (streaming deltas as events) and
 * builds the script's result. It never executes a tool and never advertises one on its own.
 */
export class ModelDriver {
  /** Every call the driver returned in this run, by id. */
  private readonly issued = new Map<string, ToolCallRecord>();
  /** Requested calls no dispatch has answered yet, oldest first, keyed by alias + arguments. */
  private readonly unclaimed: { id: string; key: string }[] = [];
  private round = 0;
  readonly usage: Usage = { inputTokens: 0, outputTokens: 0 };
  cost: number | undefined;

  constructor(
    private readonly resolver: ModelResolver,
    private readonly catalog: ToolCatalog,
    private readonly emit: (event: RunEventBody) => void,
    private readonly cap: SpendingCap = {},
  ) {}

  private get tokens(): number {
    return this.usage.inputTokens + this.usage.outputTokens;
  }

  /**
   * Before a round is sent: a cap reached already (by rounds an MCP server's sampling added) ends
   * the run, and so does a cap in dollars with a model whose price is unknown, before it costs.
   */
  private checkCapBefore(model: ResolvedModel): void {
    const { maxTokens, maxCost } = this.cap;
    if (maxTokens !== undefined && this.tokens >= maxTokens)
      throw new RunLimitError(
        'budget',
        `spending cap reached: the run has used ${this.tokens} tokens (cap ${maxTokens})`,
      );
    if (maxCost !== undefined && (this.cost ?? 0) >= maxCost)
      throw new RunLimitError(
        'budget',
        `spending cap reached: the run has cost ${dollars(this.cost ?? 0)} (cap ${dollars(maxCost)})`,
      );
    if (maxCost !== undefined && (!model.price || (model.price.currency ?? 'USD') !== 'USD'))
      throw new RunLimitError(
        'budget',
        `the spending cap is in US dollars and model "${model.alias}" (${model.providerId} ${model.modelId}) has no price in USD, so the cap could not hold: add price: to its models.yaml entry, or cap the run in tokens instead; nothing was sent`,
      );
  }

  /** After round `round`: the round that reached the cap ends the run, naming itself. */
  private checkCapAfter(round: number): void {
    const { maxTokens, maxCost } = this.cap;
    if (maxTokens !== undefined && this.tokens >= maxTokens)
      throw new RunLimitError(
        'budget',
        `spending cap reached: round ${round} brought the run to ${this.tokens} tokens (cap ${maxTokens})`,
      );
    if (maxCost !== undefined && this.cost !== undefined && this.cost >= maxCost)
      throw new RunLimitError(
        'budget',
        `spending cap reached: round ${round} brought the run to ${dollars(this.cost)} (cap ${dollars(maxCost)})`,
      );
  }

  /** Adds a round made outside `models.chat` (an MCP server's sampling request) to the run's usage and cost. */
  addUsage(usage: Usage, cost: number | undefined): void {
    this.usage.inputTokens += usage.inputTokens;
    this.usage.outputTokens += usage.outputTokens;
    if (cost !== undefined) this.cost = (this.cost ?? 0) + cost;
  }

  async chat(payload: { messages?: unknown; opts?: unknown }, signal: AbortSignal): Promise<LuaChatResult> {
    const opts = isPlainObject(payload.opts) ? payload.opts : {};
    const messages = this.toChatMessages(payload.messages);
    // Aliases a lazily started MCP server may own are made available first (it starts now).
    const advertised = asList(opts['tools']);
    if (advertised && this.catalog.prepare)
      await this.catalog.prepare(advertised.filter((alias): alias is string => typeof alias === 'string'));
    const tools = this.toolDefinitions(opts['tools']);
    const { model: alias, tools: _tools, temperature, max_tokens, ...rest } = opts;
    if (alias !== undefined && typeof alias !== 'string')
      throw new ScriptError(`models.chat: opts.model must be a model alias (string), got ${typeof alias}`);
    if (temperature !== undefined && typeof temperature !== 'number')
      throw new ScriptError(`models.chat: opts.temperature must be a number, got ${typeof temperature}`);
    if (max_tokens !== undefined && !Number.isInteger(max_tokens))
      throw new ScriptError(`models.chat: opts.max_tokens must be an integer`);
    let model: ResolvedModel;
    try {
      model = await this.resolver.resolve(alias);
    } catch (error) {
      throw new ScriptError(`models.chat: ${errorMessage(error)}`);
    }
    this.checkCapBefore(model);
    const chosenTemperature = (temperature as number | undefined) ?? model.defaults?.temperature;
    const chosenMaxTokens = (max_tokens as number | undefined) ?? model.defaults?.maxTokens;
    const request: ModelRequest = {
      model: model.modelId,
      messages,
      tools,
      ...(chosenTemperature !== undefined && { temperature: chosenTemperature }),
      ...(chosenMaxTokens !== undefined && { maxTokens: chosenMaxTokens }),
      ...(Object.keys(rest).length > 0 && { providerOptions: rest as JsonObject }),
    };
    const round = ++this.round;
    const modelInfo = { alias: model.alias, provider: model.providerId, modelId: model.modelId };
    const options: Record<string, JsonValue> = {};
    if (request.temperature !== undefined) options['temperature'] = request.temperature;
    if (request.maxTokens !== undefined) options['max_tokens'] = request.maxTokens;
    if (request.providerOptions) Object.assign(options, request.providerOptions);
    const requestEvent = {
      type: 'round-request' as const,
      round,
      model: modelInfo,
      messages: messages as unknown as JsonValue[],
      tools: tools.map((t) => t.name),
      options,
    };
    let requestEmitted = false;
    const emitRequest = (wire?: { url: string; body: JsonValue }): void => {
      if (requestEmitted) return;
      requestEmitted = true;
      this.emit(wire ? { ...requestEvent, wire } : requestEvent);
    };

    const started = performance.now();
    let content = '';
    const calls: { id: string; name: string; rawArguments: string; providerMetadata?: JsonObject }[] = [];
    let finish: { finishReason: string; usage: Usage; providerFinishReason?: string } | undefined;
    try {
      for await (const event of model.provider.chat(request, signal)) {
        switch (event.type) {
          case 'request':
            emitRequest({ url: event.url, body: event.body });
            break;
          case 'text-delta':
            emitRequest();
            content += event.text;
            this.emit({ type: 'message-delta', round, text: event.text });
            break;
          case 'tool-call':
            emitRequest();
            // providerMetadata (e.g. Gemini's thoughtSignature) must come back when the call is replayed.
            calls.push({
              id: event.id,
              name: event.name,
              rawArguments: event.rawArguments,
              ...(event.providerMetadata && { providerMetadata: event.providerMetadata }),
            });
            break;
          case 'raw':
            emitRequest();
            this.emit({ type: 'provider-raw', round, note: event.note, data: event.data });
            break;
          case 'finish':
            finish = event;
            break;
        }
      }
    } catch (error) {
      emitRequest();
      if (error instanceof ProviderError && error.kind === 'replay-divergence') throw new FatalRunError(error.message);
      const message = errorMessage(error);
      throw new ScriptError(`models.chat: ${message}`);
    }
    emitRequest();
    if (!finish) throw new ScriptError(`models.chat: the ${model.providerId} response ended without a finish event`);

    const parsed = calls.map((call) => parseToolArguments(call.rawArguments));
    const records: ToolCallRecord[] = calls.map((call, index) => ({ ...call, arguments: parsed[index]!.value }));
    const requested = calls.map((call, index) => ({
      id: call.id,
      name: call.name,
      rawArguments: call.rawArguments,
      ...(parsed[index]!.error && { error: parsed[index]!.error }),
    }));
    const roundCost = costOf(finish.usage, model.price);
    if (roundCost !== undefined) this.cost = (this.cost ?? 0) + roundCost;
    this.usage.inputTokens += finish.usage.inputTokens;
    this.usage.outputTokens += finish.usage.outputTokens;
    this.emit({
      type: 'round-response',
      round,
      content,
      toolCalls: requested,
      finishReason: finish.finishReason,
      ...(finish.providerFinishReason && { providerFinishReason: finish.providerFinishReason }),
      usage: finish.usage,
      ...(roundCost !== undefined && { cost: roundCost }),
      ...(roundCost !== undefined && model.price && { price: roundPrice(model.price) }),
      durationMs: performance.now() - started,
    });
    for (const call of requested) this.emit({ type: 'tool-call-requested', round, call });
    // The round is recorded whole; the script gets no reply when it reached the cap.
    this.checkCapAfter(round);
    for (const record of records) {
      this.issued.set(record.id, record);
      if (record.arguments) this.unclaimed.push({ id: record.id, key: claimKey(record.name, record.arguments) });
    }

    const result: LuaChatResult = {
      content,
      usage: {
        input_tokens: finish.usage.inputTokens,
        output_tokens: finish.usage.outputTokens,
        total_tokens: finish.usage.inputTokens + finish.usage.outputTokens,
      },
      finish_reason: finish.finishReason,
      model: model.alias,
    };
    if (finish.providerFinishReason) result.provider_finish_reason = finish.providerFinishReason;
    if (records.length > 0) {
      result.tool_calls = records.map((record, index) => {
        const error = parsed[index]!.error;
        if (error) return { id: record.id, name: record.name, error, raw_arguments: record.rawArguments };
        return { id: record.id, name: record.name, arguments: record.arguments! };
      });
    }
    return result;
  }

  /**
   * The id of the earliest requested call with this alias and these arguments that no dispatch has
   * claimed yet, which it then becomes; undefined when the script dispatches something the model
   * did not ask for.
   */
  claimRequested(alias: string, args: JsonObject): string | undefined {
    const key = claimKey(alias, args);
    const index = this.unclaimed.findIndex((entry) => entry.key === key);
    if (index < 0) return undefined;
    return this.unclaimed.splice(index, 1)[0]!.id;
  }

  private toolDefinitions(raw: unknown): ToolDefinition[] {
    if (raw === undefined) return [];
    const list = asList(raw);
    if (!list) throw new ScriptError(`models.chat: opts.tools must be a list of tool aliases, got ${typeof raw}`);
    const seen = new Set<string>();
    return list.flatMap((alias, index) => {
      if (typeof alias !== 'string')
        throw new ScriptError(
          `models.chat: opts.tools[${index + 1}] must be a tool alias (string), got ${typeof alias}`,
        );
      const tool = this.catalog.get(alias);
      if (!tool)
        throw new ScriptError(
          `models.chat: opts.tools[${index + 1}]: unknown tool "${shownName(alias)}" (not in this agent's catalog)${
            guessName(
              alias,
              this.catalog.list().map((known) => known.alias),
              'value',
              '',
            ).meant
          }`,
        );
      if (seen.has(alias)) return [];
      seen.add(alias);
      return [{ name: tool.alias, description: tool.description, parameters: tool.parameters }];
    });
  }

  private toChatMessages(raw: unknown): ChatMessage[] {
    const list = asList(raw);
    if (!list) throw new ScriptError('models.chat: messages must be a list of message tables');
    if (list.length === 0)
      throw new ScriptError('models.chat: messages is empty; add at least one { role = "user", content = "..." }');
    return list.map((item, index) => this.toChatMessage(item, `messages[${index + 1}]`));
  }

  private toChatMessage(item: unknown, where: string): ChatMessage {
    if (!isPlainObject(item)) throw new ScriptError(`models.chat: ${where} must be a table with a role and content`);
    const role = item['role'];
    if (typeof role !== 'string' || !KNOWN_ROLES.has(role))
      throw new ScriptError(
        `models.chat: ${where}.role must be one of system, user, assistant, tool (got ${JSON.stringify(role ?? null)})`,
      );
    const content = item['content'];
    const text = (field: string): string => {
      if (content === undefined) return '';
      if (typeof content === 'string') return content;
      if (typeof content === 'number' || typeof content === 'boolean') return String(content);
      if (role === 'tool') return JSON.stringify(content);
      throw new ScriptError(`models.chat: ${where}.${field} must be a string`);
    };
    switch (role) {
      case 'system':
      case 'user':
        if (content === undefined) throw new ScriptError(`models.chat: ${where}.content is missing`);
        return { role, content: text('content') };
      case 'assistant': {
        const message: ChatMessage = { role: 'assistant', content: text('content') };
        if (item['tool_calls'] !== undefined) {
          const calls = asList(item['tool_calls']);
          if (!calls) throw new ScriptError(`models.chat: ${where}.tool_calls must be a list of { id = call.id }`);
          const resolved = calls.map((call, i) => {
            const id = isPlainObject(call) ? call['id'] : undefined;
            if (typeof id !== 'string')
              throw new ScriptError(
                `models.chat: ${where}.tool_calls[${i + 1}].id must be the string id of a requested call`,
              );
            const record = this.issued.get(id);
            if (!record)
              throw new ScriptError(
                `models.chat: ${where}.tool_calls[${i + 1}].id "${id}" was never issued by the model in this run`,
              );
            return record;
          });
          if (resolved.length > 0) message.toolCalls = resolved;
        }
        return message;
      }
      default: {
        const id = item['tool_call_id'];
        if (typeof id !== 'string')
          throw new ScriptError(`models.chat: ${where}.tool_call_id must be the string id of the call it answers`);
        if (!this.issued.has(id))
          throw new ScriptError(`models.chat: ${where}.tool_call_id "${id}" was never issued by the model in this run`);
        return { role: 'tool', toolCallId: id, content: text('content') };
      }
    }
  }
}

/** Dollars as the cap messages write them: enough digits for a fraction of a cent. */
function dollars(value: number): string {
  return `$${value < 0.01 ? value.toPrecision(2) : value.toFixed(4)}`;
}

/** A round's price as its event records it. */
function roundPrice(price: ModelPrice): {
  inputPerMillion: number;
  outputPerMillion: number;
  currency: string;
  from: PriceSource['from'];
  asOf?: string;
  url?: string;
} {
  const source = price.source ?? { from: 'models.yaml' as const };
  return {
    inputPerMillion: price.inputPerMillion,
    outputPerMillion: price.outputPerMillion,
    currency: price.currency ?? 'USD',
    from: source.from,
    ...(source.asOf !== undefined && { asOf: source.asOf }),
    ...(source.url !== undefined && { url: source.url }),
  };
}
