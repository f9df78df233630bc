import { isPlainObject } from '../../../common/json.js';
import { settingsSchema } from './catalog-file-schemas.js';
import type { CatalogProblem, LocatedYaml } from './catalog-problem.js';
import { CATALOG_SCHEMAS, catalogValidator } from './catalog-schemas.js';
import { normalizeAgentPath } from './model-catalog.js';
import { ajvProblems } from './schema-messages.js';
import { guessName, shownName } from '../did-you-mean.js';

/** promptforge.yaml after validation and defaults. */
export interface WorkspaceSettings {
  /** The workspace default model alias (only when models.yaml defines it). */
  defaultModel?: string;
  /** Whether builtins are in the catalog. Default true. */
  builtins: boolean;
  /** Per-agent settings keyed by workspace-relative script path (`agents/x.lua`). */
  agents: Record<string, { model?: string }>;
}

/** The settings when promptforge.yaml is missing or empty. */
export function defaultSettings(): WorkspaceSettings {
  return { builtins: true, agents: {} };
}

/**
 * promptforge.yaml's settings. Every setting that is valid on its own is kept; a bad one is
 * reported and falls back to its default. Model names must be defined in models.yaml.
 */
export function checkSettings(
  located: LocatedYaml,
  modelAliases: ReadonlySet<string>,
  problems: CatalogProblem[],
): WorkspaceSettings {
  const settings = defaultSettings();
  const contents = located.document.contents;
  const raw: unknown = contents === null ? null : located.document.toJS();
  if (raw === null || raw === undefined) return settings;
  const validate = catalogValidator('promptforge.yaml');
  if (!isPlainObject(raw)) {
    problems.push(
      located.problem(
        'error',
        [],
        'promptforge.yaml must be a mapping of settings',
        'Write settings as "defaultModel: my-model", one per line.',
      ),
    );
    return settings;
  }
  if (!validate(raw)) {
    const schema = { root: CATALOG_SCHEMAS['promptforge.yaml'], pointer: '' };
    problems.push(
      ...ajvProblems(located, [], validate.errors ?? [], 'settings', schema, Object.keys(settingsSchema().shape)),
    );
  }
  // Keep every setting that is individually valid; a bad one falls back to its default.
  const bad = new Set((validate.errors ?? []).map((error) => error.instancePath.split('/')[1] ?? ''));
  if (typeof raw['builtins'] === 'boolean') settings.builtins = raw['builtins'];
  const defaultModel = raw['defaultModel'];
  if (typeof defaultModel === 'string' && !bad.has('defaultModel')) {
    if (modelAliases.has(defaultModel)) settings.defaultModel = defaultModel;
    else problems.push(unknownModel(located, ['defaultModel'], defaultModel, modelAliases));
  }
  const agents = raw['agents'];
  if (isPlainObject(agents)) {
    // Two spellings of one path (`agents/x.lua`, `./agents/x.lua`): the first is used.
    const written = new Map<string, string>();
    for (const [agentPath, agentSettings] of Object.entries(agents)) {
      if (!agentPath.endsWith('.lua') || !isPlainObject(agentSettings)) continue;
      const model = agentSettings['model'];
      if (model !== undefined && typeof model !== 'string') continue;
      const key = normalizeAgentPath(agentPath, undefined);
      const earlier = written.get(key);
      if (earlier !== undefined) {
        problems.push(
          located.problem(
            'error',
            ['agents', agentPath],
            `the settings of ${key} are written twice, as "${earlier}" and as "${agentPath}"`,
            `Remove one of the two entries under "agents"; only the first ("${earlier}") is used.`,
            { preferKey: true },
          ),
        );
        continue;
      }
      written.set(key, agentPath);
      if (typeof model === 'string') {
        if (!modelAliases.has(model)) {
          problems.push(unknownModel(located, ['agents', agentPath, 'model'], model, modelAliases));
          continue;
        }
        settings.agents[key] = { model };
      } else {
        settings.agents[key] = {};
      }
    }
  }
  return settings;
}

function unknownModel(
  located: LocatedYaml,
  segments: string[],
  alias: string,
  known: ReadonlySet<string>,
): CatalogProblem {
  const shown = shownName(alias);
  const typo = guessName(alias, known, 'value', '');
  return located.problem(
    'error',
    segments,
    `model "${shown}" is not defined in models.yaml${typo.meant}`,
    typo.guess !== undefined
      ? `${typo.fix.slice(0, -1)}, or add "${shown}" to models.yaml.`
      : known.size === 0
        ? `Add "${shown}:" with a provider and model to models.yaml.`
        : `Use one of ${[...known].map((name) => `"${name}"`).join(', ')}, or add "${shown}" to models.yaml.`,
  );
}
