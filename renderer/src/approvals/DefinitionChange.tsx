import { useId, useState, type ReactNode } from 'react';
import type { PendingApproval } from '../../../common/studio-schemas.js';
import { displayText } from '../run/argument-display';
import { hiddenCharacterLabel } from '../run/hidden-characters';
import { definitionChangeHeading, schemaLines } from './approval-card-logic';

/**
 * Plain text (a server's description, a sentence quoting it) drawn as the card draws arguments:
 * hidden and direction-changing characters as labelled escapes, laid out left to right in the
 * order of its characters; quotes, newlines and tabs as they are.
 */
export function DrawnPlain({ text }: { text: string }) {
  const parts: ReactNode[] = [];
  let plain = '';
  for (const char of text) {
    const drawn = char === '\n' || char === '\t' ? char : displayText(char, { raw: true });
    if (drawn === char) {
      plain += char;
      continue;
    }
    if (plain !== '') parts.push(plain);
    plain = '';
    const label = hiddenCharacterLabel(char.codePointAt(0) ?? 0);
    parts.push(
      <span key={parts.length} className="hidden-char" role="img" aria-label={label} title={label}>
        {drawn}
      </span>,
    );
  }
  if (plain !== '') parts.push(plain);
  return <span className="arg-string">{parts}</span>;
}

/**
 * A button that shows or hides what follows it (collapsed at first). The content is rendered only
 * while shown, so a closed section adds nothing for a screen reader to wade through.
 */
export function Disclosure({ label, children }: { label: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <div className="disclosure">
      <button
        type="button"
        className="disclosure-toggle"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        onClick={() => setOpen((shown) => !shown)}
      >
        <span aria-hidden="true">{open ? '▾' : '▸'}</span> {label}
      </button>
      {open ? (
        <div id={id} className="disclosure-body">
          {children}
        </div>
      ) : null}
    </div>
  );
}

/**
 * A JSON Schema, pretty-printed, with hidden characters drawn as labelled escapes (a server
 * writes these schemas). The box scrolls, and takes focus so it scrolls from the keyboard.
 */
export function SchemaBlock({ schema, label }: { schema: unknown; label: string }) {
  return (
    <pre className="inert-text code-block schema-json" tabIndex={0} aria-label={label}>
      {schemaLines(schema).map((line, index) => (
        <span key={index}>
          {index > 0 ? '\n' : ''}
          <DrawnPlain text={line} />
        </span>
      ))}
    </pre>
  );
}

/**
 * The card's "This tool changed" section: which parts changed, one sentence each, then (collapsed)
 * the old and new description and parameter schema side by side. Hidden characters in the
 * server's words are drawn as labelled escapes, so two descriptions that differ only by them do
 * not look the same.
 */
export function DefinitionChange({
  change,
  titleId,
}: {
  change: NonNullable<PendingApproval['definitionChange']>;
  titleId: string;
}) {
  const headingId = `${titleId}-change`;
  return (
    <section className="definition-change" aria-labelledby={headingId}>
      <h4 id={headingId}>
        <span aria-hidden="true">⚠ </span>
        {definitionChangeHeading(change.since)}
      </h4>
      <p className="definition-change-summary">
        <DrawnPlain text={change.summary} />
      </p>
      {change.details.length > 0 ? (
        <ul className="definition-change-details">
          {change.details.map((detail, index) => (
            <li key={index}>
              <DrawnPlain text={detail} />
            </li>
          ))}
        </ul>
      ) : null}
      {change.description || change.parameters ? (
        <Disclosure label="Old and new definition, side by side">
          {change.description ? (
            <div className="definition-compare">
              <div>
                <h5>Description before</h5>
                <p className="definition-text">
                  <DrawnPlain text={change.description.before} />
                </p>
              </div>
              <div>
                <h5>Description now</h5>
                <p className="definition-text">
                  <DrawnPlain text={change.description.after} />
                </p>
              </div>
            </div>
          ) : null}
          {change.parameters ? (
            <div className="definition-compare">
              <div>
                <h5>Parameters before</h5>
                <SchemaBlock schema={change.parameters.before} label="Parameter schema before" />
              </div>
              <div>
                <h5>Parameters now</h5>
                <SchemaBlock schema={change.parameters.after} label="Parameter schema now" />
              </div>
            </div>
          ) : null}
        </Disclosure>
      ) : null}
    </section>
  );
}
