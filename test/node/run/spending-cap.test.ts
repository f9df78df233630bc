import { describe, expect, it } from 'vitest';
import type { ModelResolver } from '../../../main/core/run/model-driver.js';
import { listedPrice, priceFor, PRICE_TABLE_AS_OF } from '../../../main/core/providers/price-table.js';
import { runScript, ScriptedModel } from './run-harness.js';

/** A resolver whose model has `price` (per million tokens; every scripted round is 10 in, 5 out). */
function pricedResolver(
  model: ScriptedModel,
  price?: { inputPerMillion: number; outputPerMillion: number },
): ModelResolver {
  return {
    resolve: async () => ({
      alias: 'priced',
      providerId: 'scripted',
      modelId: 'scripted-1',
      provider: model,
      ...(price && { price: { ...price, currency: 'USD', source: { from: 'models.yaml' as const } } }),
    }),
  };
}

const LOOP = `
for i = 1, 10 do
  local reply = models.chat({ { role = 'user', content = 'round ' .. i } })
  log('got reply ' .. i)
end
log('finished')`;

describe('the spending cap stops the run at the round that reaches it', () => {
  it('in tokens: round 2 brings the run to 30 tokens (cap 25); its reply never reaches the script', async () => {
    const h = await runScript(LOOP, { overrides: { limits: { maxTokens: 25 } } });
    expect(h.result.status).toBe('limit');
    expect(h.result.error).toEqual({
      kind: 'budget',
      message: 'spending cap reached: round 2 brought the run to 30 tokens (cap 25)',
    });
    expect(h.logs).toEqual(['got reply 1']);
    expect(h.model.requests).toHaveLength(2);
    // The round that crossed is recorded whole, then the run-end.
    const responses = h.events.filter((event) => event.type === 'round-response');
    expect(responses).toHaveLength(2);
    expect(h.events.at(-1)).toMatchObject({
      type: 'run-end',
      status: 'limit',
      usage: { inputTokens: 20, outputTokens: 10 },
    });
    const start = h.events.find((event) => event.type === 'run-start');
    expect(start).toMatchObject({ limits: { maxTokens: 25 } });
  });

  it('a cap the first round already reaches stops after round 1; exactly at the cap counts as reached', async () => {
    const h = await runScript(LOOP, { overrides: { limits: { maxTokens: 15 } } });
    expect(h.result.error?.message).toBe('spending cap reached: round 1 brought the run to 15 tokens (cap 15)');
    expect(h.logs).toEqual([]);
  });

  it('in dollars, at the round price: the round and its price are recorded with their source', async () => {
    const model = new ScriptedModel([]);
    // 10 in at $1000/M + 5 out at $2000/M = $0.02 a round.
    const h = await runScript(LOOP, {
      overrides: {
        models: pricedResolver(model, { inputPerMillion: 1000, outputPerMillion: 2000 }),
        limits: { maxCost: 0.05 },
      },
    });
    expect(h.result.status).toBe('limit');
    expect(h.result.error?.message).toBe('spending cap reached: round 3 brought the run to $0.0600 (cap $0.0500)');
    expect(h.logs).toEqual(['got reply 1', 'got reply 2']);
    const first = h.events.find((event) => event.type === 'round-response');
    expect(first).toMatchObject({
      cost: 0.02,
      price: { inputPerMillion: 1000, outputPerMillion: 2000, currency: 'USD', from: 'models.yaml' },
    });
  });

  it('in dollars with a model that has no price: ends before anything is sent, saying how to fix it', async () => {
    const model = new ScriptedModel([]);
    const h = await runScript(LOOP, { overrides: { models: pricedResolver(model), limits: { maxCost: 1 } } });
    expect(h.result.status).toBe('limit');
    expect(h.result.error?.kind).toBe('budget');
    expect(h.result.error?.message).toMatch(
      /^the spending cap is in US dollars and model "priced" \(scripted scripted-1\) has no price in USD.*add price: to its models\.yaml entry, or cap the run in tokens instead; nothing was sent$/,
    );
    expect(model.requests).toHaveLength(0);
  });

  it('a script cannot catch the cap with pcall', async () => {
    const h = await runScript(
      `for i = 1, 5 do local ok, err = pcall(models.chat, { { role = 'user', content = 'x' } }) log(tostring(ok)) end`,
      { overrides: { limits: { maxTokens: 1 } } },
    );
    expect(h.result.status).toBe('limit');
    expect(h.logs).toEqual([]);
  });

  it('no cap, no limit: the run goes on', async () => {
    const h = await runScript(LOOP);
    expect(h.result.status).toBe('ok');
    expect(h.logs.at(-1)).toBe('finished');
  });
});

describe('the price table', () => {
  it('knows the presets’ well-known models, dated snapshots included, with its date and page', () => {
    expect(listedPrice('openai', 'gpt-4o-mini')).toEqual({
      inputPerMillion: 0.15,
      outputPerMillion: 0.6,
      currency: 'USD',
      source: { from: 'price-table', asOf: PRICE_TABLE_AS_OF, url: 'https://openai.com/api/pricing/' },
    });
    expect(listedPrice('openai', 'gpt-4o-2024-08-06')?.inputPerMillion).toBe(2.5);
    expect(listedPrice('anthropic', 'claude-sonnet-4-5-20250929')?.outputPerMillion).toBe(15);
    expect(listedPrice('gemini', 'models/gemini-2.5-flash')?.inputPerMillion).toBe(0.3);
    expect(listedPrice('ollama', 'llama3.1')).toMatchObject({ inputPerMillion: 0, source: { from: 'local' } });
  });

  it('does not guess: an unknown model, a lookalike id, or another provider has no price', () => {
    expect(listedPrice('openai', 'gpt-4o-mini-plus')).toBeUndefined();
    expect(listedPrice('openai', 'constructor')).toBeUndefined();
    expect(listedPrice('openai', '__proto__')).toBeUndefined();
    expect(listedPrice('openrouter', 'openai/gpt-4o')).toBeUndefined();
    expect(listedPrice('vllm', 'x')).toBeUndefined();
  });

  it("models.yaml's price wins over the table", () => {
    expect(
      priceFor({
        provider: 'openai',
        model: 'gpt-4o',
        price: { inputPerMillion: 1, outputPerMillion: 2, currency: 'EUR' },
      }),
    ).toEqual({ inputPerMillion: 1, outputPerMillion: 2, currency: 'EUR', source: { from: 'models.yaml' } });
  });
});
