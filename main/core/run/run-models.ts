// The models a run answers from: the workspace's (keys and key origins checked), a recording, a fork of one, an in-process model, or none.
import { resolveProviderKey } from '../credentials/resolve-provider-key.js';
import { guessName, shownName } from '../did-you-mean.js';
import { isLoopbackUrl } from '../net/loopback.js';
import { providerPreset } from '../providers/presets.js';
import { priceFor } from '../providers/price-table.js';
import { wordsFor } from '../surface-words.js';
import { keyMayGo, keyOriginRefusal } from '../trust/key-origins.js';
import { originOf } from '../trust/workspace-manifest.js';
import type { ModelResolver, ResolvedModel } from './model-driver.js';
import type { PrepareRunOptions } from './prepare-run.js';
import { ReplayProvider, type ReplayRecording } from './replay.js';

/** A live fork's models: the recording up to the fork's step, the chosen model after it. */
export function forkResolver(recording: ReplayRecording, live: ModelResolver): ModelResolver {
  const replayed = replayResolver(recording);
  return { resolve: (alias) => (recording.answersNextRound() ? replayed : live).resolve(alias) };
}

/** A tool trial's models: none. Never reached by the trial's own script, which calls no model. */
export function noModelResolver(): ModelResolver {
  return {
    resolve: async () => {
      throw new Error('a tool trial calls no model');
    },
  };
}

/** An in-process model's resolver: it answers every round, whatever alias the script names. */
export function fixedResolver(model: ResolvedModel): ModelResolver {
  return { resolve: async () => model };
}

export function replayResolver(recording: ReplayRecording): ModelResolver {
  const provider = new ReplayProvider(recording);
  const recorded = recording.start.model;
  return {
    async resolve(alias) {
      return {
        alias: alias ?? recorded?.alias ?? 'replay',
        providerId: 'replay',
        modelId: recorded?.modelId ?? 'replay',
        provider,
        // A replayed round sends nothing: it costs nothing.
        price: { inputPerMillion: 0, outputPerMillion: 0, currency: 'USD', source: { from: 'replay' } },
      };
    },
  };
}

export function workspaceResolver(
  options: PrepareRunOptions,
  scriptPath: string,
  secretValues: string[],
  trusted: boolean,
): ModelResolver {
  const cache = new Map<string, Promise<ResolvedModel>>();
  const keyFor = async (providerId: string, envVar?: string): Promise<string | undefined> => {
    const resolved = await resolveProviderKey(providerId, {
      ...(options.secrets && { store: options.secrets }),
      allowEnv: options.allowEnvKeys ?? false,
      ...(options.env && { env: options.env }),
      ...(envVar && { envVar }),
    });
    options.onKeySource?.(providerId, resolved.source, { keychainUnavailable: resolved.keychainError !== undefined });
    if (resolved.key) secretValues.push(resolved.key);
    return resolved.key;
  };

  const build = async (alias: string | undefined): Promise<ResolvedModel> => {
    const { createProvider } = await import('../providers/create-provider.js');
    if (options.endpoint && (alias === undefined || alias === 'cli-endpoint')) {
      const apiKey = await keyFor('openai-compatible', 'OPENAI_API_KEY');
      return {
        alias: 'cli-endpoint',
        providerId: 'openai-compatible',
        modelId: options.endpoint.modelId,
        provider: createProvider({
          providerId: 'openai-compatible',
          baseUrl: options.endpoint.baseUrl,
          ...(apiKey && { apiKey }),
        }),
      };
    }
    const chosen = alias ?? options.model ?? options.workspace.models.defaultFor(scriptPath);
    const words = wordsFor(options.surface);
    if (chosen === undefined) throw new Error(words.noModelChosen);
    const spec = options.workspace.models.get(chosen);
    if (!spec) {
      const known = options.workspace.models.list().map((model) => model.alias);
      throw new Error(
        `unknown model "${shownName(chosen)}" (not in the model catalog)${guessName(chosen, known, 'value', '').meant}`,
      );
    }
    if (spec.provider === 'replay') throw new Error(words.replayModel(chosen));
    const preset = providerPreset(spec.provider);
    // A provider key goes only to its provider's origin, or to one the person approved for it.
    const keyAllowed =
      spec.baseUrl === undefined ||
      (await keyMayGo(spec.provider, spec.baseUrl, spec.alias, {
        trusted,
        ...(options.trust?.store && { store: options.trust.store }),
        ...(options.trust?.confirmKeyOrigin && { confirm: options.trust.confirmKeyOrigin }),
        ...(options.trust?.via && { via: options.trust.via }),
      }));
    // Without a key the requests still carry the conversation: they may go without one only to this
    // machine (a local server); anywhere else is a destination the person approves, as for a key.
    if (!keyAllowed && (preset?.needsKey !== false || !isLoopbackUrl(spec.baseUrl ?? '')))
      throw keyOriginRefusal(
        spec.provider,
        spec.baseUrl ?? '',
        spec.alias,
        trusted,
        options.trust?.keyOriginNote?.(spec.provider, originOf(spec.baseUrl ?? '') ?? spec.baseUrl ?? ''),
        options.surface,
      );
    // A provider that works without a key goes on without one to a local server: said, like any key source.
    if (!keyAllowed)
      options.onKeySource?.(spec.provider, 'none', {
        keychainUnavailable: false,
        withheldFrom: originOf(spec.baseUrl ?? '') ?? spec.baseUrl ?? '',
      });
    const apiKey = keyAllowed ? await keyFor(spec.provider) : undefined;
    // models.yaml's price, else the price table's (a local model: none to pay).
    const price = priceFor(spec);
    if (!apiKey && preset?.needsKey)
      throw new Error(
        `no key for ${preset.label}: set one ${words.keyWhere(spec.provider)}` +
          (preset.keyEnvVar && options.surface !== 'studio' ? ` (headless runs may use ${preset.keyEnvVar})` : ''),
      );
    return {
      alias: spec.alias,
      providerId: spec.provider,
      modelId: spec.model,
      provider: createProvider({
        providerId: spec.provider,
        ...(options.surface && { surface: options.surface }),
        ...(spec.baseUrl && { baseUrl: spec.baseUrl }),
        ...(apiKey && { apiKey }),
      }),
      ...(spec.defaults && { defaults: spec.defaults }),
      ...(price && { price }),
    };
  };

  return {
    resolve(alias) {
      const key = alias ?? '';
      let entry = cache.get(key);
      if (!entry) {
        entry = build(alias);
        // A failure (say, a missing key) is not cached: the person may fix it and retry.
        entry.catch(() => cache.delete(key));
        cache.set(key, entry);
      }
      return entry;
    },
  };
}
