import { createHash } from 'node:crypto';
import type { JsonObject, JsonSchema, JsonValue } from '../../../common/json.js';
import { isPlainObject } from '../../../common/json.js';
import type { ToolKindSettings, ToolSpec } from './tool-spec.js';

/**
 * JSON with every object's keys sorted: equal for equal values however their keys were ordered.
 * Used to compare tool arguments and messages (replay, linking dispatches to requested calls) and
 * to digest tool definitions ({@link toolDefinitionDigest}).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(
          Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : item,
  );
}

/**
 * A catalog entry, with the MCP tool annotations (`readOnlyHint`, `destructiveHint`, ...) when the
 * catalog keeps them. The digest covers them as soon as a spec carries them.
 */
export type DefinedTool = ToolSpec & { annotations?: JsonObject };

/**
 * What a tool is, as a person approving its calls relies on it: its alias, description, parameter
 * and output schemas, annotations, trust and taint check, and what runs (the builtin, the command's
 * argv, working folder and passed-through variable names, the HTTP URL, method and headers, the MCP
 * server and its tool name). Timeouts, output limits, the approval policy (the gate applies it on
 * every call anyway) and where the entry was written are left out.
 */
function definitionOf(spec: DefinedTool): JsonObject {
  return {
    digestVersion: 1,
    alias: spec.alias,
    description: spec.description,
    parameters: spec.parameters,
    outputSchema: spec.outputSchema ?? null,
    annotations: spec.annotations ?? null,
    trust: spec.trust,
    taintCheck: spec.taintCheck,
    runs: whatRuns(spec.settings),
    // Only when set, so the digests of tools without markings stay as they were.
    ...(spec.sinks && { sinks: spec.sinks }),
    ...(spec.tolerant && { tolerant: spec.tolerant }),
  };
}

function whatRuns(settings: ToolKindSettings): JsonObject {
  switch (settings.kind) {
    case 'builtin':
      return { kind: 'builtin', builtin: settings.builtin };
    case 'command':
      return { kind: 'command', command: settings.command, cwd: settings.cwd ?? null, env: settings.env ?? [] };
    case 'http':
      return { kind: 'http', method: 'POST', url: settings.url, headers: settings.headers ?? {} };
    case 'mcp':
      return { kind: 'mcp', server: settings.server, tool: settings.tool };
    default:
      return { kind: String((settings as { kind: unknown }).kind) };
  }
}

/**
 * The sha256 (hex) of the canonical JSON of a tool's definition (see {@link definitionOf}): equal
 * digests, same tool as far as a person deciding on its calls can tell. A decision that covers
 * later calls ("allow for this run") is bound to it, so a redefined tool asks again.
 */
export function toolDefinitionDigest(spec: DefinedTool): string {
  const parts = digestedParts(spec);
  const cached = digests.get(spec);
  if (cached && cached.parts.every((part, index) => part === parts[index])) return cached.digest;
  const digest = createHash('sha256')
    .update(canonicalJson(definitionOf(spec)))
    .digest('hex');
  digests.set(spec, { parts, digest });
  return digest;
}

/**
 * Each entry's digest, with the values it was made from ({@link digestedParts}): the dispatcher
 * and the approval gate check a call's digest on every call, and the canonical JSON costs tens
 * of microseconds. A field of the entry set to another value (another string, another schema
 * object) makes the digest again. The schemas and settings are not compared inside: a catalog
 * entry is never changed in place (a changed tool is a new entry, as the catalogs rebuild theirs).
 */
const digests = new WeakMap<DefinedTool, { parts: readonly unknown[]; digest: string }>();

/** The entry's fields {@link definitionOf} reads, as they are now. */
function digestedParts(spec: DefinedTool): unknown[] {
  const settings = spec.settings as unknown as Record<string, unknown>;
  return [
    spec.alias,
    spec.description,
    spec.parameters,
    spec.outputSchema,
    spec.annotations,
    spec.trust,
    spec.taintCheck,
    spec.sinks,
    spec.tolerant,
    settings,
    ...Object.values(settings),
  ];
}

/** What changed in a tool's definition, in plain words (screen readers, the terminal). */
export interface ToolDefinitionChange {
  /** One sentence naming the parts that changed: `Tool "notes" changed: its description and its parameters.` */
  summary: string;
  /** One sentence per change, with the old and the new value where they fit in a sentence. */
  details: string[];
  /** The old and the new description, when it changed. */
  description?: { before: string; after: string };
  /** The old and the new parameter schema, when it changed. */
  parameters?: { before: JsonSchema; after: JsonSchema };
}

/** Longest value quoted in a detail sentence; longer ones end in `…` (the card shows them whole). */
const MAX_QUOTED_CHARS = 300;

function quoted(text: string): string {
  const cut = text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS)}…` : text;
  return `“${cut}”`;
}

function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a ?? null) === canonicalJson(b ?? null);
}

function listInWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

function kindInWords(kind: string): string {
  return kind === 'mcp' ? 'an MCP tool' : kind === 'http' ? 'an HTTP tool' : `a ${kind} tool`;
}

/**
 * How `before` became `after`, in words: which parts changed, the old and new description, the
 * schema properties added, removed and changed, and what runs now. `undefined`-free: an unchanged
 * definition gives an empty `details` list and a summary saying so.
 */
export function toolDefinitionChange(before: DefinedTool, after: DefinedTool): ToolDefinitionChange {
  const parts: string[] = [];
  const details: string[] = [];
  const change: Omit<ToolDefinitionChange, 'summary' | 'details'> = {};
  const note = (part: string, ...sentences: string[]) => {
    if (!parts.includes(part)) parts.push(part);
    details.push(...sentences);
  };

  if (before.alias !== after.alias)
    note('its name', `Its name is now ${quoted(after.alias)} (was ${quoted(before.alias)}).`);
  const runs = runsChange(before.settings, after.settings);
  if (runs.length > 0) note(runs[0]!.part, ...runs.map((item) => item.sentence));
  if (before.description !== after.description) {
    note(
      'its description',
      `Its description was ${quoted(before.description)}; it is now ${quoted(after.description)}.`,
    );
    change.description = { before: before.description, after: after.description };
  }
  if (!sameJson(before.parameters, after.parameters)) {
    note('its parameters', ...parametersChange(before.parameters, after.parameters));
    change.parameters = { before: before.parameters, after: after.parameters };
  }
  if (!sameJson(before.outputSchema, after.outputSchema))
    note(
      'its output schema',
      before.outputSchema === undefined
        ? 'It now declares an output schema (it had none).'
        : after.outputSchema === undefined
          ? 'It no longer declares an output schema.'
          : 'Its output schema changed.',
    );
  if (!sameJson(before.annotations, after.annotations))
    note('its annotations', annotationsChange(before.annotations ?? {}, after.annotations ?? {}));
  if (before.trust !== after.trust) note('its trust', `It is now ${after.trust} (was ${before.trust}).`);
  if (before.taintCheck !== after.taintCheck)
    note(
      'its taint check',
      after.taintCheck
        ? 'Its taint check is now on (was off): calls whose arguments carry untrusted text ask.'
        : 'Its taint check is now off (was on): calls whose arguments carry untrusted text no longer ask.',
    );

  const summary =
    parts.length === 0
      ? `Tool ${quoted(after.alias)} has the same definition.`
      : `Tool ${quoted(after.alias)} changed: ${listInWords(parts)}.`;
  return { summary, details, ...change };
}

function argv(command: readonly string[]): string {
  return JSON.stringify(command);
}

function runsChange(before: ToolKindSettings, after: ToolKindSettings): { part: string; sentence: string }[] {
  if (before.kind !== after.kind)
    return [
      {
        part: 'what runs',
        sentence: `It is now ${kindInWords(after.kind)}, running ${runsInWords(after)} (was ${kindInWords(before.kind)}, running ${runsInWords(before)}).`,
      },
    ];
  const out: { part: string; sentence: string }[] = [];
  switch (after.kind) {
    case 'builtin': {
      const was = before as typeof after;
      if (was.builtin !== after.builtin)
        out.push({
          part: 'what runs',
          sentence: `It now runs the builtin ${quoted(after.builtin)} (was ${quoted(was.builtin)}).`,
        });
      break;
    }
    case 'command': {
      const was = before as typeof after;
      if (!sameJson(was.command, after.command))
        out.push({
          part: 'its command',
          sentence: `Its command is now ${argv(after.command)} (was ${argv(was.command)}).`,
        });
      if ((was.cwd ?? '.') !== (after.cwd ?? '.'))
        out.push({
          part: 'its command',
          sentence: `It now runs in the folder ${quoted(after.cwd ?? '.')} (was ${quoted(was.cwd ?? '.')}).`,
        });
      if (!sameJson(was.env ?? [], after.env ?? []))
        out.push({
          part: 'its command',
          sentence: `It now gets the host variables ${namesInWords(after.env ?? [])} (was ${namesInWords(was.env ?? [])}).`,
        });
      break;
    }
    case 'http': {
      const was = before as typeof after;
      if (was.url !== after.url)
        out.push({ part: 'its URL', sentence: `It now sends POST to ${quoted(after.url)} (was ${quoted(was.url)}).` });
      if (!sameJson(was.headers ?? {}, after.headers ?? {})) {
        // Header values may be tokens: only their names are said.
        const names = (headers: typeof after.headers) => Object.keys(headers ?? {}).sort();
        out.push({
          part: 'its HTTP headers',
          sentence: sameJson(names(was.headers), names(after.headers))
            ? `The values of its HTTP headers changed (${namesInWords(names(after.headers))}).`
            : `It now sends the HTTP headers ${namesInWords(names(after.headers))} (was ${namesInWords(names(was.headers))}).`,
        });
      }
      break;
    }
    case 'mcp': {
      const was = before as typeof after;
      if (was.server !== after.server)
        out.push({
          part: 'its server',
          sentence: `It now comes from MCP server ${quoted(after.server)} (was ${quoted(was.server)}).`,
        });
      if (was.tool !== after.tool)
        out.push({
          part: 'its server',
          sentence: `It now calls the server's tool ${quoted(after.tool)} (was ${quoted(was.tool)}).`,
        });
      break;
    }
  }
  return out;
}

function namesInWords(names: readonly string[]): string {
  return names.length === 0 ? 'none' : listInWords(names.map((name) => quoted(name)));
}

function runsInWords(settings: ToolKindSettings): string {
  switch (settings.kind) {
    case 'builtin':
      return `the builtin ${quoted(settings.builtin)}`;
    case 'command':
      return argv(settings.command);
    case 'http':
      return `POST ${quoted(settings.url)}`;
    case 'mcp':
      return `tool ${quoted(settings.tool)} of MCP server ${quoted(settings.server)}`;
    default:
      return 'something unknown';
  }
}

/** `string`, `integer or null`, `any value`: a property schema's type in words. */
function typeInWords(schema: JsonValue | undefined): string {
  if (!isPlainObject(schema)) return schema === false ? 'nothing (always refused)' : 'any value';
  const type = schema['type'];
  if (typeof type === 'string') return type;
  if (Array.isArray(type) && type.every((item) => typeof item === 'string')) return (type as string[]).join(' or ');
  if ('enum' in schema) return 'one of a fixed list';
  if ('const' in schema) return 'a fixed value';
  return 'a value with its own schema';
}

function propertiesOf(schema: JsonSchema): Record<string, JsonValue> {
  const properties = schema['properties'];
  return isPlainObject(properties) ? properties : {};
}

function requiredOf(schema: JsonSchema): Set<string> {
  const required = schema['required'];
  return new Set(Array.isArray(required) ? required.filter((item): item is string => typeof item === 'string') : []);
}

/** The parameter schema's change: properties added, removed and changed, and anything else. */
function parametersChange(before: JsonSchema, after: JsonSchema): string[] {
  const was = propertiesOf(before);
  const now = propertiesOf(after);
  const wasRequired = requiredOf(before);
  const nowRequired = requiredOf(after);
  const need = (required: Set<string>, name: string) => (required.has(name) ? 'required' : 'optional');
  const added: string[] = [];
  const removed: string[] = [];
  const changed: string[] = [];
  for (const name of Object.keys(now))
    if (!(name in was)) added.push(`${quoted(name)} (${typeInWords(now[name])}, ${need(nowRequired, name)})`);
  for (const name of Object.keys(was)) if (!(name in now)) removed.push(quoted(name));
  for (const name of Object.keys(now)) {
    if (!(name in was)) continue;
    const words: string[] = [];
    const typeBefore = typeInWords(was[name]);
    const typeAfter = typeInWords(now[name]);
    if (typeBefore !== typeAfter) words.push(`is now ${typeAfter} (was ${typeBefore})`);
    else if (!sameJson(was[name], now[name])) words.push('has a different schema');
    if (wasRequired.has(name) !== nowRequired.has(name)) words.push(`is now ${need(nowRequired, name)}`);
    if (words.length > 0) changed.push(`${quoted(name)} ${listInWords(words)}`);
  }
  const sentences: string[] = [];
  if (added.length > 0) sentences.push(`Parameters added: ${listInWords(added)}.`);
  if (removed.length > 0) sentences.push(`Parameters removed: ${listInWords(removed)}.`);
  if (changed.length > 0) sentences.push(`Parameters changed: ${listInWords(changed)}.`);
  // Required-ness of a name that is no property, additionalProperties, $defs...: the rest.
  const rest = (schema: JsonSchema) => {
    const { properties: _properties, ...others } = schema;
    const required = [...requiredOf(schema)].filter((name) => !(name in propertiesOf(schema))).sort();
    return { ...others, required };
  };
  if (!sameJson(rest(before), rest(after)))
    sentences.push(
      sentences.length === 0
        ? 'Its parameter schema changed (beyond its list of properties).'
        : 'The rest of its parameter schema changed too.',
    );
  return sentences;
}

function annotationsChange(before: JsonObject, after: JsonObject): string {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const shown = (value: JsonValue | undefined) => (value === undefined ? 'not set' : JSON.stringify(value));
  const changes = names
    .filter((name) => !sameJson(before[name], after[name]))
    .map((name) => `${name} is now ${shown(after[name])} (was ${shown(before[name])})`);
  return `Its annotations changed: ${listInWords(changes)}.`;
}
