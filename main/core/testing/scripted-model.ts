import type { ResolvedModel } from '../run/model-driver.js';
import { ProviderError, type ModelEvent, type ModelProvider, type ModelRequest } from '../providers/model-provider.js';
import type { ScriptedReply } from './test-file-schema.js';

/** Characters per estimated token, for rounds whose reply gives no `usage`. */
const CHARS_PER_TOKEN = 4;

/**
 * A model written in a test case: it answers round N with the case's reply N, in-process (no HTTP,
 * no key). A round past the last reply fails with a message that says so; `exhaustedAt` then holds
 * the round, for the case's result.
 */
export class ScriptedProvider implements ModelProvider {
  readonly id = 'scripted';
  private round = 0;
  /** The first round that found no reply left, if any. */
  exhaustedAt: number | undefined;

  constructor(
    private readonly replies: readonly ScriptedReply[],
    private readonly where: string,
  ) {}

  async *chat(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent> {
    const round = ++this.round;
    if (signal.aborted) throw new ProviderError('aborted', 'the run ended');
    const reply = this.replies[round - 1];
    if (!reply) {
      this.exhaustedAt ??= round;
      throw new ProviderError(
        'bad-request',
        `the scripted model of ${this.where} has no reply for round ${round} (it has ${this.replies.length}); add a reply to model.replies or make the agent stop sooner`,
      );
    }
    const content = reply.content ?? '';
    if (content) yield { type: 'text-delta', text: content };
    const calls = reply.calls ?? [];
    for (const [index, call] of calls.entries()) {
      yield {
        type: 'tool-call',
        id: call.id ?? `call-${round}-${index + 1}`,
        name: call.name,
        rawArguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
      };
    }
    const usage = reply.usage
      ? { inputTokens: reply.usage.input, outputTokens: reply.usage.output }
      : {
          inputTokens: Math.ceil(JSON.stringify(request.messages).length / CHARS_PER_TOKEN),
          outputTokens: Math.ceil((content.length + JSON.stringify(calls).length) / CHARS_PER_TOKEN),
        };
    yield { type: 'finish', finishReason: reply.finish ?? (calls.length > 0 ? 'tool_calls' : 'stop'), usage };
  }
}

/** A scripted or environment model as the run resolves it: every alias the script names gets it. */
export function inProcessModel(
  provider: ModelProvider,
  modelId: string,
  price?: { inputPerMillion: number; outputPerMillion: number },
): ResolvedModel {
  return {
    alias: modelId,
    providerId: provider.id,
    modelId,
    provider,
    ...(price && { price: { ...price, source: { from: 'test-file' as const } } }),
  };
}
