import { z } from 'zod';
import type { JsonSchema } from '../../../common/json.js';
import { DEFAULT_MCP_CALL_TIMEOUT_MS, DEFAULT_MCP_START_TIMEOUT_MS } from './mcp-spec.js';
import { BUILTIN_TOOL_NAMES } from '../tools/builtin-tools.js';
import { APPROVAL_POLICIES, TOOL_KINDS, TRUST_LEVELS, type ToolKind } from '../../../common/tool-policy.js';
import { MODEL_PROVIDERS } from './model-catalog.js';
import { CATALOG_FILES, type CatalogFileName } from './catalog-files.js';
import { lazy } from '../../../common/lazy.js';

/**
 * The one definition of the workspace files (promptforge.yaml, tools.yaml, models.yaml). The
 * JSON Schemas in `schemas/` are generated from it (`npm run schemas`; a test keeps the files equal
 * to the generator), ajv validates against the generated schemas, and the loader's entry types
 * and field lists are inferred from it. Each file's definitions are built the first time they are
 * read, so loading a workspace without that file never builds them.
 */

/** Tool aliases and model aliases must match this, so they are valid wire names. */
export const ALIAS_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_TIMEOUT_MS = 3_600_000;
const MAX_START_TIMEOUT_MS = 600_000;
const MAX_OUTPUT_BYTES = 268_435_456;

/** Builds the `allOf` rule "when kind is `kind`, `then` also holds". */
const whenKind = (kind: string, then: JsonSchema): JsonSchema => ({
  if: { properties: { kind: { const: kind } }, required: ['kind'] },
  then,
});

// ---- tools.yaml ---------------------------------------------------------------------------------

/** The tools.yaml definitions, built on first use (a workspace with no tools.yaml never builds them). */
const toolSchemas = lazy(() => {
  // shared definitions -------------------------------------------------------------------------

  const toolAlias = z.string().regex(ALIAS_PATTERN).meta({
    id: 'alias',
    description:
      "The tool's alias: the name scripts dispatch and the model sees (its wire name). A letter or underscore, then up to 63 letters, digits, `_`, `.` or `-`.",
  });

  /** A JSON Schema someone wrote; compiled on its own by the user-schema compiler. */
  const jsonSchemaObject = z.custom<JsonSchema>().meta({
    id: 'jsonSchemaObject',
    type: 'object',
    description: 'A JSON Schema (draft 2020-12 unless it declares `$schema` draft-07).',
  });

  const secretRef = z
    .strictObject({
      secret: z
        .string()
        .min(1)
        .meta({
          description: 'The keychain entry name (as set with `promptforge keys set NAME`).',
          examples: ['MY_API_KEY'],
        }),
    })
    .meta({
      id: 'secretRef',
      description:
        'A header value read from the OS keychain in the main process; never written to files, logs or errors.',
    });

  // A pattern's `title` says in words what the pattern wants; fixes quote it.
  const envName = z.string().regex(ENV_NAME).meta({
    title: 'environment variable names: letters, digits and "_", not starting with a digit (e.g. "HOME")',
  });

  const trust = z.enum(TRUST_LEVELS);
  const approval = z.enum(APPROVAL_POLICIES);
  const timeoutMs = z.number().int().min(1).max(MAX_TIMEOUT_MS);
  const argv = z.array(z.string().min(1)).min(1);

  /** Fields every entry may carry, whatever its kind. */
  const commonToolFields = {
    alias: toolAlias
      .optional()
      .meta({ description: 'Only in the list form; in the mapping form the key is the alias.' }),
    kind: z.enum(TOOL_KINDS).meta({
      description:
        "builtin: one of the host's own tools. command: a local executable (argv, no shell). http: POST the arguments as JSON to a URL. mcp: an MCP server (stdio or Streamable HTTP) whose tools become aliases `<prefix><tool>`; the entry's key is the server name.",
    }),
    description: z
      .string()
      .optional()
      .meta({ description: 'What the tool does, shown to the model and to the person approving a call.' }),
    trust: trust.optional().meta({
      description:
        "untrusted output is wrapped in the run's envelope before the script sees it. Default: untrusted for http and mcp tools and the http_get builtin, trusted otherwise.",
    }),
    approval: approval.optional().meta({
      description:
        'ask: a person decides each call. auto: runs without asking unless its arguments are tainted. deny: always refused. Default: ask for command, http and mcp tools; each builtin has its own default.',
    }),
    taintCheck: z.boolean().optional().meta({
      description:
        "Default true: arguments that repeat earlier untrusted output force a person's approval. false turns that off for this tool (the loader warns).",
    }),
  };

  /** Fields of an entry that defines one tool itself (every kind but mcp, whose tools come from the server). */
  const singleToolFields = {
    sinks: z
      .array(z.string().regex(/^(\/.*)?$/))
      .optional()
      .meta({
        description:
          'Arguments (JSON pointers, e.g. /to) that send, address or run something: a sink carrying any untrusted text (8 letters and digits, or a short output whole) asks, even under an allow rule.',
      }),
    tolerant: z
      .array(z.string().regex(/^(\/.*)?$/))
      .optional()
      .meta({
        description:
          'Arguments (JSON pointers) where untrusted text is expected, e.g. a summary quoting a page: taint there does not force approval. Counts only in a trusted workspace; sinks stay sinks.',
      }),
    parameters: jsonSchemaObject.optional().meta({
      description: 'JSON Schema of the arguments object. Default: {type: object, properties: {}}.',
    }),
    output: jsonSchemaObject.optional().meta({
      description:
        'When present the tool declares structured output: its output must be JSON matching this schema, and scripts receive a table.',
    }),
  };

  const cwd = z.string().optional().meta({
    description:
      'kind command or mcp: working directory relative to the workspace (must stay inside it). Default: the workspace root.',
  });
  const toolTimeoutMs = timeoutMs.optional().meta({
    description: `kind command, http or mcp: milliseconds before the call is stopped (command: the whole process group is killed; mcp: the call is cancelled, progress notifications restart the clock). Default 30000 (mcp ${DEFAULT_MCP_CALL_TIMEOUT_MS}).`,
  });
  const url = z
    .url()
    .optional()
    .meta({
      description:
        "kind http: the http(s) URL the arguments are POSTed to as JSON. kind mcp: the server's Streamable HTTP endpoint.",
      examples: ['https://api.example.com/search'],
    });
  const headers = z
    .record(z.string(), z.union([z.string(), secretRef]))
    .optional()
    .meta({ description: 'kind http or mcp (Streamable HTTP): header name -> literal value or {secret: NAME}.' });

  /** The fields of each kind (besides the common ones). A field of another kind is ignored, with a warning. */
  const kindFields = {
    builtin: {
      ...singleToolFields,
      builtin: z
        .enum(BUILTIN_TOOL_NAMES)
        .optional()
        .meta({ description: 'kind builtin: which builtin runs. Default: the alias.' }),
    },
    command: {
      ...singleToolFields,
      command: argv.meta({ examples: [['node', 'tools/search.js']] }),
      cwd,
      env: z.array(envName).optional(),
      timeoutMs: toolTimeoutMs,
      maxOutputBytes: z
        .number()
        .int()
        .min(1)
        .max(MAX_OUTPUT_BYTES)
        .optional()
        .meta({ description: 'kind command: largest stdout accepted, in bytes. Default 1048576.' }),
    },
    http: { ...singleToolFields, url, headers, timeoutMs: toolTimeoutMs },
    mcp: {
      command: z
        .union([argv, z.string().min(1)])
        .optional()
        .meta({
          description:
            'kind command: the argv, run with no shell. A first element with a slash is relative to the workspace root; otherwise it is looked up on PATH. kind mcp: the server executable (a string, with `args`), or the whole argv as a list.',
          examples: [['node', 'tools/search.js']],
        }),
      args: z.array(z.string()).optional().meta({ description: 'kind mcp (stdio): arguments after `command`.' }),
      cwd,
      env: z
        .union([z.array(envName), z.record(envName, z.union([z.null(), z.string(), secretRef]))])
        .optional()
        .meta({
          description:
            'kind command: names of host environment variables passed through; only these and PATH reach the process. kind mcp: the same list, or a mapping NAME -> empty (pass the host value through), a literal string, or {secret: NAME} read from the keychain in the main process.',
        }),
      url,
      headers,
      oauth: z
        .strictObject({
          clientId: z.string().min(1).optional().meta({
            description: "A client id registered beforehand with the server's authorization server.",
          }),
          clientSecret: secretRef.optional().meta({ description: 'Its secret, from the keychain: {secret: NAME}.' }),
          clientMetadataUrl: z.url().optional().meta({
            description:
              'An https URL of a Client ID Metadata Document describing this client, used as the client id where the authorization server supports them.',
          }),
          scopes: z
            .array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/))
            .optional()
            .meta({ description: "Scopes to ask for when the server's challenge names none." }),
        })
        .optional()
        .meta({
          description:
            'kind mcp (Streamable HTTP): how the host signs in with OAuth when the server asks for it. Sign-in works without this block (dynamic registration); it names a pre-registered client, a client metadata document, or scopes.',
        }),
      timeoutMs: toolTimeoutMs,
      prefix: z
        .string()
        .regex(/^[A-Za-z0-9_.-]{0,32}$/)
        .optional()
        .meta({
          title: 'at most 32 letters, digits, "_", "." or "-"',
          description:
            'kind mcp: prepended to each tool name to form its alias. Default: the server name and a dot (`fs.` for a server named fs). Empty: the tool names as they are.',
        }),
      include: z
        .array(z.string().min(1))
        .optional()
        .meta({ description: 'kind mcp: only these tool names (as the server names them) are exposed.' }),
      exclude: z.array(z.string().min(1)).optional().meta({ description: 'kind mcp: tool names never exposed.' }),
      startTimeoutMs: z
        .number()
        .int()
        .min(1)
        .max(MAX_START_TIMEOUT_MS)
        .optional()
        .meta({
          description: `kind mcp: milliseconds from starting the server until it answers initialize. Default ${DEFAULT_MCP_START_TIMEOUT_MS}.`,
        }),
      tools: z
        .record(
          z.string(),
          z.strictObject({
            approval: approval.exactOptional(),
            trust: trust.exactOptional(),
            timeoutMs: timeoutMs.exactOptional(),
            taintCheck: z.boolean().exactOptional(),
          }),
        )
        .optional()
        .meta({
          description:
            'kind mcp: per-tool overrides, tool name (as the server names it) -> {approval, trust, timeoutMs, taintCheck}.',
        }),
    },
  } satisfies Record<ToolKind, unknown>;

  /** One tools.yaml entry (the mapping form's value, or a list item). */
  const ToolEntrySchema = z
    .strictObject({
      ...commonToolFields,
      ...kindFields.builtin,
      ...kindFields.command,
      ...kindFields.http,
      // Last: where mcp and command share a field, mcp's accepts more; the `allOf` rules below narrow it.
      ...kindFields.mcp,
      command: kindFields.mcp.command,
    })
    .meta({
      id: 'tool',
      description: "One tool. `kind` picks how it runs; the kind's settings sit next to the common fields.",
      allOf: [
        whenKind('command', {
          required: ['command'],
          properties: { command: { type: 'array' }, env: { type: 'array' } },
        }),
        whenKind('http', { required: ['url'] }),
        whenKind('mcp', { anyOf: [{ required: ['command'] }, { required: ['url'] }] }),
      ],
    });

  const toolsFile = z
    .union([
      z.null().meta({ description: 'An empty file: no tools beyond the builtins.' }),
      z.record(toolAlias, ToolEntrySchema).meta({ description: 'alias -> tool entry' }),
      // The item refers to the entry; `allOf: undefined` keeps the entry's own rules from being copied here.
      z.array(ToolEntrySchema.meta({ required: ['alias'], allOf: undefined })).meta({
        description: 'A list of tool entries, each with an `alias`.',
      }),
    ])
    .meta({
      title: 'PromptForge tool catalog (tools.yaml)',
      description: `The tools an agent in this workspace may dispatch with tools.call(alias, args). Either a mapping from alias to tool entry, or a list of tool entries that each carry an \`alias\`. The builtins (${BUILTIN_TOOL_NAMES.join(', ')}) are added unless promptforge.yaml sets \`builtins: false\`.`,
    });

  return { commonToolFields, kindFields, ToolEntrySchema, toolsFile };
});

/** One tools.yaml entry (the mapping form's value, or a list item). */
export const toolEntrySchema = () => toolSchemas().ToolEntrySchema;

/** One tools.yaml entry after validation. */
export type ToolEntryYaml = z.infer<ReturnType<typeof toolEntrySchema>>;

/** Every field a tool entry may have. */
export const toolFields = lazy((): readonly string[] => Object.keys(toolEntrySchema().shape));

/** The fields that apply to an entry of `kind`; the others are ignored with a warning. */
export function toolFieldsFor(kind: ToolKind): ReadonlySet<string> {
  const { commonToolFields, kindFields } = toolSchemas();
  return new Set([...Object.keys(commonToolFields), ...Object.keys(kindFields[kind])]);
}

// ---- models.yaml --------------------------------------------------------------------------------

/** The models.yaml definitions, built on first use. */
const modelSchemas = lazy(() => {
  const modelAlias = z
    .string()
    .regex(ALIAS_PATTERN)
    .meta({ id: 'alias', description: 'The model alias used by scripts and settings.' });

  /** One models.yaml entry. */
  const ModelEntrySchema = z
    .strictObject({
      provider: z.enum(MODEL_PROVIDERS).meta({
        description:
          'Who serves the model. openai-compatible needs baseUrl; ollama, lmstudio, openrouter, groq and vllm have default base URLs; replay answers from a recorded transcript.',
      }),
      model: z
        .string()
        .min(1)
        .optional()
        .meta({
          description: "The provider's model id, e.g. gpt-4o-mini or claude-sonnet-4-5. Required except for replay.",
          examples: ['gpt-4o-mini'],
        }),
      baseUrl: z
        .string()
        .optional()
        .meta({
          format: 'uri',
          description: 'The API base URL (http or https), e.g. http://localhost:11434/v1.',
          examples: ['http://localhost:8080/v1'],
        }),
      defaults: z
        .strictObject({
          temperature: z.number().min(0).max(2).exactOptional().meta({ description: 'Sampling temperature.' }),
          maxTokens: z
            .number()
            .int()
            .min(1)
            .exactOptional()
            .meta({ description: 'Largest number of output tokens per round.' }),
        })
        .optional()
        .meta({ description: "Request defaults; a script's opts override them." }),
      price: z
        .strictObject({
          inputPerMillion: z.number().min(0).meta({ description: 'Price per million input tokens.' }),
          outputPerMillion: z.number().min(0).meta({ description: 'Price per million output tokens.' }),
          currency: z
            .string()
            .regex(/^[A-Z]{3}$/)
            .optional()
            .meta({
              title: 'a three-letter ISO 4217 code such as "USD" or "EUR"',
              description: 'ISO 4217 code. Default USD.',
            }),
        })
        .optional()
        .meta({ description: 'Prices used to show the cost of a run.' }),
    })
    .meta({
      id: 'model',
      allOf: [
        { if: { properties: { provider: { not: { const: 'replay' } } } }, then: { required: ['model'] } },
        {
          if: { properties: { provider: { const: 'openai-compatible' } }, required: ['provider'] },
          then: { required: ['baseUrl'] },
        },
      ],
    });

  const modelsFile = z
    .union([z.null().meta({ description: 'An empty file: no models.' }), z.record(modelAlias, ModelEntrySchema)])
    .meta({
      title: 'PromptForge model catalog (models.yaml)',
      description:
        "Model aliases: each points to a provider and a provider model id, with optional defaults and prices. Scripts pick one with models.chat(messages, {model = 'alias'}).",
    });

  return { ModelEntrySchema, modelsFile };
});

/** One models.yaml entry. */
export const modelEntrySchema = () => modelSchemas().ModelEntrySchema;

/** One models.yaml entry after validation. */
export type ModelEntryYaml = z.infer<ReturnType<typeof modelEntrySchema>>;

// ---- promptforge.yaml ---------------------------------------------------------------------------

/** The promptforge.yaml definitions, built on first use. */
const settingsSchemas = lazy(() => {
  /** promptforge.yaml as written. */
  const SettingsSchema = z.strictObject({
    defaultModel: z.string().min(1).optional().meta({
      description: 'The model alias (from models.yaml) used when neither the script nor the agent names one.',
    }),
    builtins: z
      .boolean()
      .optional()
      .meta({
        description: `Whether the builtin tools (${BUILTIN_TOOL_NAMES.join(', ')}) are in the catalog. Default true.`,
      }),
    agents: z
      .record(
        z.string().regex(/\.lua$/),
        z.strictObject({
          model: z
            .string()
            .min(1)
            .optional()
            .meta({ description: "The agent's default model alias; wins over defaultModel." }),
        }),
      )
      .optional()
      .meta({
        description:
          "Per-agent settings, keyed by the script's path relative to the workspace (e.g. agents/research.lua).",
      }),
  });

  const settingsFile = z.union([z.null().meta({ description: 'An empty file: all defaults.' }), SettingsSchema]).meta({
    title: 'PromptForge workspace settings (promptforge.yaml)',
    description:
      'Optional settings of a workspace folder. Its presence (or tools.yaml or models.yaml) marks the folder as a workspace root.',
  });

  return { SettingsSchema, settingsFile };
});

/** promptforge.yaml as written. */
export const settingsSchema = () => settingsSchemas().SettingsSchema;

// ---- generated JSON Schemas ---------------------------------------------------------------------

const FILE_SCHEMAS = {
  'promptforge.yaml': { name: 'promptforge', schema: () => settingsSchemas().settingsFile },
  'tools.yaml': { name: 'tools', schema: () => toolSchemas().toolsFile },
  'models.yaml': { name: 'models', schema: () => modelSchemas().modelsFile },
} as const satisfies Record<CatalogFileName, { name: string; schema: () => z.ZodType }>;

/** Where the published schema of `file` lives, relative to the repository root. */
export function catalogSchemaPath(file: CatalogFileName): string {
  return `schemas/${FILE_SCHEMAS[file].name}.schema.json`;
}

let generated: Record<CatalogFileName, JsonSchema> | undefined;

/** The JSON Schema of each catalog file (draft 2020-12), generated once from the definitions above. */
export function catalogJsonSchemas(): Readonly<Record<CatalogFileName, JsonSchema>> {
  generated ??= Object.fromEntries(CATALOG_FILES.map((file) => [file, generate(file)])) as Record<
    CatalogFileName,
    JsonSchema
  >;
  return generated;
}

/** The text of the published file for `file` (what `npm run schemas` writes). */
export function catalogJsonSchemaText(file: CatalogFileName): string {
  return `${JSON.stringify(catalogJsonSchemas()[file], null, 2)}\n`;
}

function generate(file: CatalogFileName): JsonSchema {
  const { name, schema } = FILE_SCHEMAS[file];
  const body = z.toJSONSchema(schema(), {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      // An enum says everything; a `type` beside it would add a second error for one mistake.
      if (jsonSchema.enum !== undefined) delete jsonSchema.type;
      // Keys are strings anyway, and integers need no safe-integer bound.
      if (typeof jsonSchema.propertyNames === 'object') {
        // A copy: the key's schema object may also stand elsewhere (an item of the same type).
        const { type: _string, ...names } = jsonSchema.propertyNames;
        if (Object.keys(names).length > 0) jsonSchema.propertyNames = names;
        else delete jsonSchema.propertyNames;
      }
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
    },
  });
  const { $schema, ...rest } = body;
  // A JSON round trip leaves plain JSON values (no undefined, no shared objects).
  return JSON.parse(
    JSON.stringify({ $schema, $id: `https://promptforge.studio/schemas/${name}.schema.json`, ...rest }),
  ) as JsonSchema;
}
