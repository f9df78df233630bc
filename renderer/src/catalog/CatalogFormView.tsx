import { useId, useState, type ReactNode } from 'react';
import { errorMessage } from '../../../common/error-message.js';
import type { Document } from 'yaml';
import { escapePointerSegment, toPointer } from '../../../common/json-pointer.js';
import type { CatalogFile, CatalogProblemInfo } from '../../../common/studio-schemas.js';
import {
  addYamlEntry,
  duplicateYamlEntry,
  parseYamlDocument,
  removeYamlEntry,
  renameYamlEntry,
  setYamlValue,
  yamlEntries,
  type YamlEntry,
} from '../../../common/yaml-edit.js';
import { fieldsOf, KIND_HELP, MODEL_PROVIDERS, newEntryFields, TOOL_KINDS, type CatalogField } from './catalog-fields';
import {
  BooleanControl,
  HeadersControl,
  JsonControl,
  ListControl,
  NumberControl,
  SelectControl,
  TextControl,
  type ControlProps,
} from './FieldControls';
import './catalog.css';

/** Whether {@link CatalogForm} has a form for this file. */
export function hasCatalogForm(file: CatalogFile): boolean {
  return fieldsOf(file) !== undefined;
}

type Value = Record<string, unknown>;

function valueAt(data: unknown, path: readonly (string | number)[]): unknown {
  let current = data;
  for (const step of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[step];
  }
  return current;
}

function uniqueAlias(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/**
 * The core reports a missing required field at its parent (`/m`, "missing required field
 * \"baseUrl\""); the form shows it at the field, where it is filled in.
 */
function atField(problem: CatalogProblemInfo): CatalogProblemInfo {
  const missing = /missing required field "([^"]+)"/.exec(problem.message)?.[1];
  if (missing === undefined) return problem;
  return { ...problem, pointer: `${problem.pointer}/${missing.split('/').map(escapePointerSegment).join('/')}` };
}

const claims = (pointer: string, problem: CatalogProblemInfo): boolean =>
  problem.pointer === pointer || problem.pointer.startsWith(`${pointer}/`);

function ProblemLines({ problems, id }: { problems: readonly CatalogProblemInfo[]; id?: string }) {
  if (problems.length === 0) return id ? <span id={id} hidden /> : null;
  return (
    <div id={id} className="field-problems">
      {problems.map((problem, index) => (
        <p key={index} className={`field-problem severity-${problem.severity}`}>
          {problem.message}
          {problem.fix ? <span className="problem-fix"> Fix: {problem.fix}</span> : null}
        </p>
      ))}
    </div>
  );
}

/**
 * The form view of tools.yaml and models.yaml: one card per entry with every field of the
 * schema, and add, duplicate and remove. Each edit goes through the YAML document model and
 * changes only the text of what changed (common/yaml-edit.ts), so comments and formatting stay;
 * the result is the new raw text, which the editor validates like any other edit. The core's
 * located problems show next to the field they point at.
 */
export function CatalogForm({
  file,
  text,
  problems,
  onChange,
}: {
  file: CatalogFile;
  text: string;
  problems: readonly CatalogProblemInfo[];
  onChange: (text: string) => void;
}) {
  const [editError, setEditError] = useState<string | null>(null);
  const fields = fieldsOf(file) ?? [];
  const located = problems.map(atField);
  let document: Document;
  try {
    document = parseYamlDocument(text);
  } catch (error) {
    return (
      <p className="panel-empty muted">
        The form needs YAML that parses. Fix the raw text first ({errorMessage(error)}
        ).
      </p>
    );
  }
  const data: unknown = document.toJS();
  if (data !== null && data !== undefined && typeof data !== 'object') {
    return <p className="panel-empty muted">The form needs one entry per alias. Fix the raw text first.</p>;
  }
  const entries = yamlEntries(document);
  const noun = file === 'tools.yaml' ? 'tool' : 'model';
  const taken = new Set(entries.map((entry) => entry.alias));
  const edit = (change: (current: string) => string): void => {
    try {
      onChange(change(text));
      setEditError(null);
    } catch (error) {
      setEditError(errorMessage(error));
    }
  };
  const entryPointers = entries.map((entry) => toPointer(entry.path));
  const fileProblems = located.filter((problem) => !entryPointers.some((pointer) => claims(pointer, problem)));

  return (
    <div className="catalog-form" aria-label={`${file} form`} role="form">
      <ProblemLines problems={fileProblems} />
      {editError ? (
        <p className="error-text small" role="alert">
          That edit was not applied: {editError}
        </p>
      ) : null}
      {entries.length === 0 ? (
        <p className="muted">
          No {noun}s in {file} yet. Add one below; it is saved when you press Save.
        </p>
      ) : null}
      {entries.map((entry, index) => (
        <EntryCard
          key={index}
          file={file}
          noun={noun}
          entry={entry}
          value={(valueAt(data, entry.path) ?? {}) as Value}
          fields={fields}
          problems={located.filter((problem) => claims(toPointer(entry.path), problem))}
          onRename={(alias) => edit((current) => renameYamlEntry(current, entry, alias))}
          onDuplicate={() =>
            edit((current) => duplicateYamlEntry(current, entry, uniqueAlias(`${entry.alias}-copy`, taken)))
          }
          onRemove={() => edit((current) => removeYamlEntry(current, entry))}
          onField={(path, value) => edit((current) => setYamlValue(current, [...entry.path, ...path], value))}
          taken={taken}
        />
      ))}
      <AddEntry
        file={file}
        noun={noun}
        taken={taken}
        onAdd={(alias, kind) => edit((current) => addYamlEntry(current, alias, newEntryFields(file, kind)))}
      />
    </div>
  );
}

function EntryCard({
  file,
  noun,
  entry,
  value,
  fields,
  problems,
  taken,
  onRename,
  onDuplicate,
  onRemove,
  onField,
}: {
  file: CatalogFile;
  noun: string;
  entry: YamlEntry;
  value: Value;
  fields: readonly CatalogField[];
  problems: readonly CatalogProblemInfo[];
  taken: ReadonlySet<string>;
  onRename: (alias: string) => void;
  onDuplicate: () => void;
  onRemove: () => void;
  onField: (path: readonly string[], value: unknown) => void;
}) {
  const id = useId();
  const alias = entry.alias;
  const kind = typeof value['kind'] === 'string' ? value['kind'] : undefined;
  const entryPointer = toPointer(entry.path);
  const shown = visibleFields(fields, file === 'tools.yaml' ? kind : undefined, value);
  const kindPointer = `${entryPointer}/kind`;
  const fieldPointers = [
    ...shown.map((field) => toPointer([...entry.path, ...field.path])),
    kindPointer,
    `${entryPointer}/alias`,
  ];
  const entryProblems = problems.filter((problem) => !fieldPointers.some((pointer) => claims(pointer, problem)));
  const errors = problems.filter((problem) => problem.severity === 'error').length;

  return (
    <section className={`catalog-entry${errors > 0 ? ' has-errors' : ''}`} aria-label={`${noun} ${alias}`}>
      <header className="catalog-entry-header">
        <AliasInput alias={alias} noun={noun} taken={taken} onRename={onRename} />
        {file === 'tools.yaml' ? (
          <label className="entry-kind" title={KIND_HELP}>
            <span className="muted small">kind</span>
            <SelectControl
              label={`${alias} kind`}
              value={kind}
              options={TOOL_KINDS}
              allowDefault={false}
              describedBy={`${id}-kind-problems`}
              invalid={problems.some((problem) => claims(kindPointer, problem))}
              onChange={(next) => onField(['kind'], next)}
            />
          </label>
        ) : null}
        <div className="toolbar-spacer" />
        {errors > 0 ? (
          <span className="problem-badge" title={`${errors} problems in ${alias}`}>
            {errors}
            <span className="visually-hidden"> problems in {alias}</span>
          </span>
        ) : null}
        <button
          type="button"
          className="button button-small"
          onClick={onDuplicate}
          aria-label={`Duplicate ${noun} ${alias}`}
        >
          Duplicate
        </button>
        <button
          type="button"
          className="button button-small button-danger"
          onClick={onRemove}
          aria-label={`Remove ${noun} ${alias}`}
        >
          Remove
        </button>
      </header>
      <ProblemLines id={`${id}-kind-problems`} problems={problems.filter((problem) => claims(kindPointer, problem))} />
      <ProblemLines problems={entryProblems} />
      <div className="catalog-fields">
        {shown.map((field) => {
          const pointer = toPointer([...entry.path, ...field.path]);
          const mine = problems.filter((problem) => claims(pointer, problem));
          const key = `${field.path.join('.')}-${field.control}`;
          return (
            <FieldRow
              key={key}
              id={`${id}-${key}`}
              alias={alias}
              field={field}
              value={valueAt(value, field.path)}
              problems={mine}
              onChange={(next) => onField(field.path, next)}
            />
          );
        })}
      </div>
    </section>
  );
}

/**
 * The fields an entry shows: those of its kind, plus any field it has that belongs to another kind
 * (so nothing in the file is hidden; the core then says it does not belong). One control per path.
 */
function visibleFields(fields: readonly CatalogField[], kind: string | undefined, value: Value): CatalogField[] {
  const known = kind !== undefined && TOOL_KINDS.includes(kind);
  const byPath = new Map<string, CatalogField>();
  for (const field of fields) {
    const path = field.path.join('.');
    const fits = !known || field.kinds === undefined || field.kinds.includes(kind);
    if (fits) byPath.set(path, field);
    else if (!byPath.has(path) && valueAt(value, field.path) !== undefined) byPath.set(path, field);
  }
  return fields.filter((field) => byPath.get(field.path.join('.')) === field);
}

function FieldRow({
  id,
  alias,
  field,
  value,
  problems,
  onChange,
}: {
  id: string;
  alias: string;
  field: CatalogField;
  value: unknown;
  problems: readonly CatalogProblemInfo[];
  onChange: (value: unknown) => void;
}) {
  const props: ControlProps<unknown> = {
    label: `${alias} ${field.label.toLowerCase()}`,
    value,
    onChange,
    describedBy: `${id}-help ${id}-problems`,
    invalid: problems.some((problem) => problem.severity === 'error'),
    ...(field.placeholder !== undefined && { placeholder: field.placeholder }),
  };
  let control: ReactNode;
  switch (field.control) {
    case 'select':
      control = <SelectControl {...props} options={field.options ?? []} allowDefault={field.path[0] !== 'provider'} />;
      break;
    case 'boolean':
      control = <BooleanControl {...props} />;
      break;
    case 'integer':
    case 'number':
      control = <NumberControl {...props} />;
      break;
    case 'list':
      control = <ListControl {...props} keepEmpty={field.keepEmpty ?? false} itemName="item" />;
      break;
    case 'command':
      control = Array.isArray(value) ? <ListControl {...props} itemName="item" /> : <TextControl {...props} />;
      break;
    case 'env':
      control =
        value !== undefined && !Array.isArray(value) ? (
          <JsonControl {...props} />
        ) : (
          <ListControl {...props} itemName="name" />
        );
      break;
    case 'headers':
      control = <HeadersControl {...props} />;
      break;
    case 'json':
      control = <JsonControl {...props} />;
      break;
    case 'text':
      control = <TextControl {...props} />;
  }
  return (
    <div className={`catalog-field control-${field.control}`}>
      <span className="catalog-field-label" aria-hidden="true">
        {field.label}
      </span>
      <div className="catalog-field-control">
        {control}
        <p id={`${id}-help`} className="field-help" title={field.help}>
          {field.help}
        </p>
        <ProblemLines id={`${id}-problems`} problems={problems} />
      </div>
    </div>
  );
}

/** The alias, renamed when the person leaves the field or presses Enter. */
function AliasInput({
  alias,
  noun,
  taken,
  onRename,
}: {
  alias: string;
  noun: string;
  taken: ReadonlySet<string>;
  onRename: (alias: string) => void;
}) {
  const [draft, setDraft] = useState(alias);
  // A rename (here or in the raw text) resets the draft, adjusted while rendering.
  const [seen, setSeen] = useState(alias);
  if (alias !== seen) {
    setSeen(alias);
    setDraft(alias);
  }
  const trimmed = draft.trim();
  const problem =
    trimmed === ''
      ? 'An alias cannot be empty.'
      : trimmed !== alias && taken.has(trimmed)
        ? `"${trimmed}" is taken.`
        : null;
  const commit = (): void => {
    if (problem === null && trimmed !== alias) onRename(trimmed);
    else setDraft(alias);
  };
  return (
    <span className="alias-input">
      <input
        className="text-input alias-text"
        aria-label={`Alias of ${noun} ${alias}`}
        aria-invalid={problem !== null || undefined}
        value={draft}
        spellCheck={false}
        onChange={(event) => setDraft(event.target.value)}
        onBlur={commit}
        onKeyDown={(event) => {
          if (event.key === 'Enter') commit();
          if (event.key === 'Escape') setDraft(alias);
        }}
      />
      {problem ? (
        <span className="field-problem small" role="alert">
          {problem} Press Esc to keep {alias}.
        </span>
      ) : null}
    </span>
  );
}

function AddEntry({
  file,
  noun,
  taken,
  onAdd,
}: {
  file: CatalogFile;
  noun: string;
  taken: ReadonlySet<string>;
  onAdd: (alias: string, kind: string) => void;
}) {
  const choices = file === 'tools.yaml' ? TOOL_KINDS : MODEL_PROVIDERS;
  const [alias, setAlias] = useState('');
  const [kind, setKind] = useState(choices[0] ?? '');
  const [problem, setProblem] = useState<string | null>(null);
  const suggestion = uniqueAlias(`new_${noun}`, taken);
  const add = (): void => {
    const name = alias.trim() === '' ? suggestion : alias.trim();
    if (taken.has(name)) {
      setProblem(`There is already a ${noun} named "${name}". Pick another name, or duplicate that one.`);
      return;
    }
    setProblem(null);
    setAlias('');
    onAdd(name, kind);
  };
  return (
    <section className="catalog-add" aria-label={`Add a ${noun}`}>
      <h3 className="small">Add a {noun}</h3>
      <div className="button-row">
        <input
          className="text-input"
          aria-label={`New ${noun} alias`}
          aria-invalid={problem !== null || undefined}
          placeholder={suggestion}
          value={alias}
          spellCheck={false}
          onChange={(event) => setAlias(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') add();
          }}
        />
        <select
          className="select"
          aria-label={file === 'tools.yaml' ? `New ${noun} kind` : `New ${noun} provider`}
          value={kind}
          onChange={(event) => setKind(event.target.value)}
        >
          {choices.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
        <button type="button" className="button" onClick={add}>
          Add {noun}
        </button>
      </div>
      {problem ? (
        <p className="field-problem" role="alert">
          {problem}
        </p>
      ) : null}
    </section>
  );
}
