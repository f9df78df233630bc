import { useState } from 'react';
import { errorMessage } from '../../../common/error-message.js';

/**
 * The controls of the catalog form. Each one shows a value read from the YAML document and
 * reports a new value (or `undefined`: remove the field); the form writes it through the
 * document model.
 */

/** What every control gets: its accessible name, the ids of its help and problem texts. */
export interface ControlProps<T> {
  label: string;
  value: T | undefined;
  onChange: (value: T | undefined) => void;
  describedBy: string;
  invalid: boolean;
  placeholder?: string;
}

const a11y = (props: ControlProps<unknown>) => ({
  'aria-label': props.label,
  'aria-describedby': props.describedBy,
  'aria-invalid': props.invalid || undefined,
});

/** The ✕ that removes one row of a list editor; `label` names the row for assistive technology. */
function RemoveRowButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <button
      type="button"
      className="button button-small button-quiet"
      aria-label={label}
      title="Remove"
      onClick={onClick}
    >
      <span aria-hidden="true">✕</span>
    </button>
  );
}

/** A number as a person types it: a number when it reads as one, else the text (the core says what is wrong). */
export function parseNumberText(text: string): number | string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(trimmed) ? Number(trimmed) : text;
}

export function TextControl(props: ControlProps<unknown>) {
  const value = props.value === undefined || props.value === null ? '' : String(props.value);
  return (
    <input
      className="text-input"
      {...a11y(props)}
      value={value}
      placeholder={props.placeholder}
      spellCheck={false}
      onChange={(event) => props.onChange(event.target.value === '' ? undefined : event.target.value)}
    />
  );
}

export function NumberControl(props: ControlProps<unknown>) {
  // The text is kept while it is being typed ("0." is not yet a number).
  const shown = props.value === undefined || props.value === null ? '' : String(props.value);
  const [draft, setDraft] = useState(shown);
  // Only an outside change of the value resets the draft (adjusted while rendering, not in an effect).
  const [seen, setSeen] = useState(shown);
  if (shown !== seen) {
    setSeen(shown);
    if (String(parseNumberText(draft) ?? '') !== shown) setDraft(shown);
  }
  return (
    <input
      className="text-input number-input"
      inputMode="decimal"
      {...a11y(props)}
      value={draft}
      placeholder={props.placeholder}
      onChange={(event) => {
        setDraft(event.target.value);
        props.onChange(parseNumberText(event.target.value));
      }}
    />
  );
}

export function SelectControl(props: ControlProps<unknown> & { options: readonly string[]; allowDefault: boolean }) {
  const value = props.value === undefined || props.value === null ? '' : String(props.value);
  return (
    <select
      className="select"
      {...a11y(props)}
      value={value}
      onChange={(event) => props.onChange(event.target.value === '' ? undefined : event.target.value)}
    >
      {props.allowDefault || value === '' ? <option value="">(default)</option> : null}
      {value !== '' && !props.options.includes(value) ? <option value={value}>{value}</option> : null}
      {props.options.map((option) => (
        <option key={option} value={option}>
          {option}
        </option>
      ))}
    </select>
  );
}

export function BooleanControl(props: ControlProps<unknown>) {
  const value = props.value === true ? 'true' : props.value === false ? 'false' : '';
  return (
    <select
      className="select"
      {...a11y(props)}
      value={value}
      onChange={(event) => props.onChange(event.target.value === '' ? undefined : event.target.value === 'true')}
    >
      <option value="">(default)</option>
      <option value="true">true</option>
      <option value="false">false</option>
    </select>
  );
}

/**
 * A list of strings: one input per item, with remove buttons and an Add button. A value written
 * as text where the list goes (`command: node x.mjs`) is shown as it was typed, never as "None.",
 * with a button that turns it into the list the file needs.
 */
export function ListControl(props: ControlProps<unknown> & { keepEmpty?: boolean; itemName: string }) {
  if (typeof props.value === 'string') {
    const words = props.value
      .trim()
      .split(/\s+/)
      .filter((word) => word !== '');
    return (
      <div className="list-control" role="group" aria-label={props.label} aria-describedby={props.describedBy}>
        <TextControl {...props} />
        <button
          type="button"
          className="button button-small"
          disabled={words.length === 0}
          onClick={() => props.onChange(words)}
          title={`Write it as the list [${words.join(', ')}]`}
        >
          Make it a list of {words.length} {words.length === 1 ? props.itemName : `${props.itemName}s`}
        </button>
      </div>
    );
  }
  if (props.value !== undefined && !Array.isArray(props.value)) return <JsonControl {...props} />;
  const items = Array.isArray(props.value)
    ? props.value.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)))
    : [];
  const set = (next: string[]) => props.onChange(next.length === 0 && !props.keepEmpty ? undefined : next);
  return (
    <div className="list-control" role="group" aria-label={props.label} aria-describedby={props.describedBy}>
      {items.length === 0 ? <p className="muted small">None.</p> : null}
      {items.map((item, index) => (
        <div key={index} className="list-control-row">
          <input
            className="text-input"
            aria-label={`${props.label} ${props.itemName} ${index + 1}`}
            aria-invalid={props.invalid || undefined}
            value={item}
            placeholder={props.placeholder}
            spellCheck={false}
            onChange={(event) => set(items.map((old, at) => (at === index ? event.target.value : old)))}
          />
          <RemoveRowButton
            label={`Remove ${props.label} ${props.itemName} ${index + 1}`}
            onClick={() => set(items.filter((_, at) => at !== index))}
          />
        </div>
      ))}
      <button
        type="button"
        className="button button-small"
        aria-label={`Add ${props.itemName} to ${props.label}`}
        onClick={() => set([...items, ''])}
      >
        + Add {props.itemName}
      </button>
    </div>
  );
}

type HeaderRow = { name: string; secret: boolean; value: string };

function headerRows(value: unknown): HeaderRow[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value as Record<string, unknown>).map(([name, item]) => {
    if (item !== null && typeof item === 'object' && 'secret' in item)
      return { name, secret: true, value: String((item as { secret: unknown }).secret ?? '') };
    return { name, secret: false, value: typeof item === 'string' ? item : JSON.stringify(item) };
  });
}

/**
 * Header name → value. A value is either written in the file, or names a keychain entry
 * (`{ secret: NAME }`), which the main process reads when it sends the request: the key itself is
 * never in the file or in the studio.
 */
export function HeadersControl(props: ControlProps<unknown>) {
  const rows = headerRows(props.value);
  const set = (next: HeaderRow[]) =>
    props.onChange(
      next.length === 0
        ? undefined
        : Object.fromEntries(next.map((row) => [row.name, row.secret ? { secret: row.value } : row.value])),
    );
  const update = (index: number, change: Partial<HeaderRow>) =>
    set(rows.map((row, at) => (at === index ? { ...row, ...change } : row)));
  return (
    <div className="list-control" role="group" aria-label={props.label} aria-describedby={props.describedBy}>
      {rows.length === 0 ? <p className="muted small">None.</p> : null}
      {rows.map((row, index) => (
        <div key={index} className="list-control-row header-row">
          <input
            className="text-input"
            aria-label={`${props.label} header ${index + 1} name`}
            aria-invalid={props.invalid || undefined}
            value={row.name}
            placeholder="Authorization"
            spellCheck={false}
            onChange={(event) => update(index, { name: event.target.value })}
          />
          <select
            className="select"
            aria-label={`${props.label} header ${index + 1} source`}
            value={row.secret ? 'secret' : 'literal'}
            onChange={(event) => update(index, { secret: event.target.value === 'secret' })}
          >
            <option value="literal">text</option>
            <option value="secret">keychain secret</option>
          </select>
          <input
            className="text-input"
            aria-label={`${props.label} header ${index + 1} ${row.secret ? 'keychain entry name' : 'value'}`}
            aria-invalid={props.invalid || undefined}
            value={row.value}
            placeholder={row.secret ? 'MY_API_KEY (keychain entry)' : 'value'}
            spellCheck={false}
            onChange={(event) => update(index, { value: event.target.value })}
          />
          <RemoveRowButton
            label={`Remove ${props.label} header ${index + 1}`}
            onClick={() => set(rows.filter((_, at) => at !== index))}
          />
        </div>
      ))}
      <button
        type="button"
        className="button button-small"
        aria-label={`Add ${props.label} header`}
        onClick={() =>
          set([
            ...rows,
            { name: rows.length === 0 ? 'Authorization' : `X-Header-${rows.length + 1}`, secret: true, value: '' },
          ])
        }
      >
        + Add header
      </button>
      <p className="muted small">
        A keychain secret is read by the studio&apos;s main process when it calls; set it in Settings → Credentials
        (under &ldquo;Secrets named in tools.yaml&rdquo;, once the file is saved) or with{' '}
        <code>promptforge keys set NAME</code>.
      </p>
    </div>
  );
}

/** A JSON value as text; applied whenever the text parses. */
export function JsonControl(props: ControlProps<unknown>) {
  const shown = props.value === undefined ? '' : JSON.stringify(props.value, null, 2);
  const [draft, setDraft] = useState(shown);
  const [parseError, setParseError] = useState<string | null>(null);
  // Only an outside change of the value resets the draft (adjusted while rendering, not in an effect).
  const [seen, setSeen] = useState(shown);
  if (shown !== seen) {
    setSeen(shown);
    let same = false;
    try {
      same = draft.trim() !== '' && JSON.stringify(JSON.parse(draft)) === JSON.stringify(props.value);
    } catch {
      same = false;
    }
    if (!same && !(draft.trim() === '' && props.value === undefined)) {
      setDraft(shown);
      setParseError(null);
    }
  }
  return (
    <div className="json-control">
      <textarea
        className="text-input json-input"
        {...a11y({ ...props, invalid: props.invalid || parseError !== null })}
        value={draft}
        rows={Math.min(12, Math.max(3, draft.split('\n').length))}
        spellCheck={false}
        placeholder="{ }"
        onChange={(event) => {
          const text = event.target.value;
          setDraft(text);
          if (text.trim() === '') {
            setParseError(null);
            props.onChange(undefined);
            return;
          }
          try {
            const parsed: unknown = JSON.parse(text);
            setParseError(null);
            props.onChange(parsed);
          } catch (error) {
            setParseError(errorMessage(error));
          }
        }}
      />
      {parseError ? (
        <p className="field-problem" role="alert">
          Not applied: this is not JSON yet ({parseError}).
        </p>
      ) : null}
    </div>
  );
}
