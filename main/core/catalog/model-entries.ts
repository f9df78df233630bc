import { ALIAS_PATTERN, modelEntrySchema, type ModelEntryYaml } from './catalog-file-schemas.js';
import { lazy } from '../../../common/lazy.js';
import type { CatalogProblem, LocatedYaml } from './catalog-problem.js';
import { CATALOG_SCHEMAS, catalogValidator } from './catalog-schemas.js';
import { firstOfAlias, rawEntries } from './catalog-yaml.js';
import { DEFAULT_BASE_URLS, type ModelSpec } from './model-catalog.js';
import { ajvProblems } from './schema-messages.js';

/** Every field a model entry may have. */
const modelFields = lazy(() => Object.keys(modelEntrySchema().shape));

/** The models of models.yaml; an entry with an error is reported and dropped. */
export function checkModels(located: LocatedYaml, problems: CatalogProblem[]): ModelSpec[] {
  const entries = rawEntries(located, false, problems, 'model entry');
  if (!entries) return [];
  const validate = catalogValidator<ModelEntryYaml>('models.yaml', '/$defs/model');
  const entrySchema = { root: CATALOG_SCHEMAS['models.yaml'], pointer: '/$defs/model' };
  const seen = new Set<string>();
  const specs: ModelSpec[] = [];
  for (const raw of entries) {
    const { alias, segments, value } = raw;
    if (alias === undefined || !ALIAS_PATTERN.test(alias)) {
      problems.push(
        located.problem(
          'error',
          raw.aliasSegments,
          `model alias "${alias ?? ''}" is not a valid name`,
          'Use 1-64 letters, digits, "_", "." or "-", starting with a letter or "_".',
          { preferKey: true },
        ),
      );
      continue;
    }
    if (!firstOfAlias(located, { ...raw, alias }, seen, 'model', problems)) continue;
    if (!validate(value)) {
      problems.push(
        ...ajvProblems(located, segments, validate.errors ?? [], `model "${alias}"`, entrySchema, modelFields()),
      );
      continue;
    }
    const parsed = value.baseUrl === undefined ? undefined : URL.parse(value.baseUrl);
    if (value.baseUrl !== undefined && parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:') {
      problems.push(
        located.problem(
          'error',
          [...segments, 'baseUrl'],
          `model "${alias}": baseUrl "${value.baseUrl}" is not an http(s) URL`,
          'Use e.g. "http://localhost:11434/v1".',
        ),
      );
      continue;
    }
    const baseUrl = value.baseUrl ?? DEFAULT_BASE_URLS[value.provider];
    specs.push({
      alias,
      provider: value.provider,
      model: value.model ?? '',
      ...(baseUrl !== undefined ? { baseUrl } : {}),
      ...(value.defaults !== undefined ? { defaults: { ...value.defaults } } : {}),
      ...(value.price !== undefined ? { price: { ...value.price, currency: value.price.currency ?? 'USD' } } : {}),
      source: located.file,
    });
  }
  return specs;
}
