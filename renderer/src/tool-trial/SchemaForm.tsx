import { useId } from 'react';
import { escapePointerSegment } from '../../../common/json-pointer.js';
import type { ArgumentProblem } from '../../../common/studio-schemas.js';
import { parseNumberText } from '../catalog/FieldControls';
import { emptyValue, enumValues, fieldKind, requiredNames, type FormSchema } from './schema-form';

type Value = unknown;

interface FieldProps {
  /** The property name (or `item N`) shown as the label. */
  name: string;
  schema: FormSchema;
  value: Value;
  required: boolean;
  pointer: string;
  problems: readonly ArgumentProblem[];
  onChange: (value: Value) => void;
}

const object = (value: Value): Record<string, Value> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, Value>) : {};

function FieldProblems({ id, problems }: { id: string; problems: readonly ArgumentProblem[] }) {
  return (
    <div id={id} className="trial-field-problems">
      {problems.map((problem, index) => (
        <p key={index} className="field-problem">
          {problem.message}
          {problem.fix ? <span className="problem-fix"> Fix: {problem.fix}</span> : null}
        </p>
      ))}
    </div>
  );
}

function Help({ id, schema }: { id: string; schema: FormSchema }) {
  const text = typeof schema.description === 'string' ? schema.description : '';
  return (
    <p id={id} className="field-help">
      {text}
    </p>
  );
}

/** The property's name; a required one is marked (`aria-required` on the control says it to a screen reader). */
function Label({ htmlFor, name, required }: { htmlFor?: string; name: string; required: boolean }) {
  return (
    <span className="trial-field-label">
      <label htmlFor={htmlFor}>
        <code>{name}</code>
      </label>
      {required ? (
        <span className="required-mark" title="required" aria-hidden="true">
          {' '}
          *
        </span>
      ) : null}
    </span>
  );
}

/** The head of an object's or array's fieldset: its name, required mark, help and problems. */
function FieldsetHead(props: {
  id: string;
  name: string;
  required: boolean;
  schema: FormSchema;
  problems: readonly ArgumentProblem[];
}) {
  const { id, name, required, schema, problems } = props;
  return (
    <>
      <legend>
        <code>{name}</code>
        {required ? (
          <span className="required-mark" title="required">
            {' '}
            * <span className="visually-hidden">required</span>
          </span>
        ) : null}
      </legend>
      <Help id={`${id}-help`} schema={schema} />
      <FieldProblems id={`${id}-problems`} problems={problems} />
    </>
  );
}

/** One field generated from a schema node; objects and arrays recurse. */
function SchemaField(props: FieldProps) {
  const id = useId();
  const { name, schema, value, required, pointer, problems, onChange } = props;
  const kind = fieldKind(schema);
  const mine = problems.filter((problem) => problem.pointer === pointer);
  const describedBy = `${id}-help ${id}-problems`;
  const invalid = mine.length > 0 || undefined;

  if (kind === 'object') {
    const current = object(value);
    const needed = requiredNames(schema);
    return (
      <fieldset className="trial-object" aria-describedby={describedBy}>
        <FieldsetHead id={id} name={name} required={required} schema={schema} problems={mine} />
        <ObjectFields
          schema={schema}
          value={current}
          required={needed}
          pointer={pointer}
          problems={problems}
          onChange={(next) => onChange(Object.keys(next).length === 0 && !required ? undefined : next)}
        />
      </fieldset>
    );
  }

  if (kind === 'array') {
    const items = Array.isArray(value) ? value : [];
    const itemSchema = schema.items as FormSchema;
    const set = (next: Value[]) => onChange(next.length === 0 && !required ? undefined : next);
    return (
      <fieldset className="trial-array" aria-describedby={describedBy}>
        <FieldsetHead id={id} name={name} required={required} schema={schema} problems={mine} />
        {items.length === 0 ? <p className="muted small">No items.</p> : null}
        {items.map((item, index) => (
          <div key={index} className="trial-array-item">
            <SchemaField
              name={`${name}[${index}]`}
              schema={itemSchema}
              value={item}
              required
              pointer={`${pointer}/${index}`}
              problems={problems}
              onChange={(next) =>
                set(items.map((old, at) => (at === index ? (next === undefined ? emptyValue(itemSchema) : next) : old)))
              }
            />
            <button
              type="button"
              className="button button-small button-quiet"
              aria-label={`Remove ${name} item ${index + 1}`}
              onClick={() => set(items.filter((_, at) => at !== index))}
            >
              <span aria-hidden="true">✕</span>
            </button>
          </div>
        ))}
        <button type="button" className="button button-small" onClick={() => set([...items, emptyValue(itemSchema)])}>
          + Add to {name}
        </button>
      </fieldset>
    );
  }

  let control;
  if (kind === 'enum' || kind === 'boolean') {
    const choices = kind === 'boolean' ? [true, false] : enumValues(schema);
    // An MCP server's choice field names its options (`enumNames`): the name beside the value.
    const names = Array.isArray(schema['enumNames']) ? (schema['enumNames'] as unknown[]) : [];
    const index = choices.findIndex((choice) => JSON.stringify(choice) === JSON.stringify(value));
    control = (
      <select
        id={id}
        className="select"
        aria-describedby={describedBy}
        aria-invalid={invalid}
        aria-required={required || undefined}
        value={value === undefined ? '' : String(index)}
        onChange={(event) => onChange(event.target.value === '' ? undefined : choices[Number(event.target.value)])}
      >
        <option value="">(not set)</option>
        {value !== undefined && index < 0 ? <option value="-1">{JSON.stringify(value)}</option> : null}
        {choices.map((choice, at) => (
          <option key={at} value={String(at)}>
            {typeof choice === 'string' ? choice : JSON.stringify(choice)}
            {typeof names[at] === 'string' && names[at] !== choice ? ` (${names[at]})` : ''}
          </option>
        ))}
      </select>
    );
  } else {
    const numeric = kind === 'number' || kind === 'integer';
    const text = value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
    control = (
      <input
        id={id}
        className="text-input"
        inputMode={numeric ? (kind === 'integer' ? 'numeric' : 'decimal') : undefined}
        aria-describedby={describedBy}
        aria-invalid={invalid}
        aria-required={required || undefined}
        value={text}
        spellCheck={false}
        placeholder={numeric ? kind : typeof schema.format === 'string' ? schema.format : undefined}
        onChange={(event) =>
          onChange(
            numeric
              ? parseNumberText(event.target.value)
              : event.target.value === '' && !required
                ? undefined
                : event.target.value,
          )
        }
      />
    );
  }
  return (
    <div className="trial-field">
      <Label htmlFor={id} name={name} required={required} />
      <div className="trial-field-control">
        {control}
        <Help id={`${id}-help`} schema={schema} />
        <FieldProblems id={`${id}-problems`} problems={mine} />
      </div>
    </div>
  );
}

function ObjectFields({
  schema,
  value,
  required,
  pointer,
  problems,
  onChange,
}: {
  schema: FormSchema;
  value: Record<string, Value>;
  required: readonly string[];
  pointer: string;
  problems: readonly ArgumentProblem[];
  onChange: (value: Record<string, Value>) => void;
}) {
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) return <p className="muted small">No fields.</p>;
  return (
    <>
      {properties.map(([name, child]) => (
        <SchemaField
          key={name}
          name={name}
          schema={child}
          value={value[name]}
          required={required.includes(name)}
          pointer={`${pointer}/${escapePointerSegment(name)}`}
          problems={problems}
          onChange={(next) => {
            const copy = { ...value };
            if (next === undefined) delete copy[name];
            else copy[name] = next;
            onChange(copy);
          }}
        />
      ))}
    </>
  );
}

/**
 * A form generated from a tool's parameters schema (an object schema whose parts
 * {@link unsupportedPart} accepts): strings, numbers, integers, booleans, enums, nested objects
 * and arrays, with required marks, descriptions as help text and the core's problems next to
 * the field they point at.
 */
export function SchemaForm({
  schema,
  value,
  problems,
  onChange,
}: {
  schema: FormSchema;
  value: Record<string, Value>;
  problems: readonly ArgumentProblem[];
  onChange: (value: Record<string, Value>) => void;
}) {
  if (Object.keys(schema.properties ?? {}).length === 0)
    return <p className="muted">This tool takes no arguments: press Run.</p>;
  return (
    <div className="schema-form">
      <ObjectFields
        schema={schema}
        value={value}
        required={requiredNames(schema)}
        pointer=""
        problems={problems}
        onChange={onChange}
      />
    </div>
  );
}
