import { isMap, isScalar, parseDocument } from 'yaml';
import type { CatalogFile } from '../../../common/studio-schemas.js';

interface Field {
  key: string;
  label: string;
  options?: readonly string[];
}

const fieldsByFile: Partial<Record<CatalogFile, readonly Field[]>> = {
  'tools.yaml': [
    { key: 'description', label: 'Description' },
    { key: 'trust', label: 'Trust', options: ['trusted', 'untrusted'] },
    { key: 'approval', label: 'Approval', options: ['ask', 'auto', 'deny'] },
  ],
  'models.yaml': [
    { key: 'provider', label: 'Provider' },
    { key: 'model', label: 'Model' },
  ],
};

/** A YAML scalar for `value`: plain when that is unambiguous, else double-quoted (JSON is valid YAML). */
function yamlScalar(value: string): string {
  const plain =
    /^[A-Za-z][A-Za-z0-9 _.,()/-]*$/.test(value) &&
    !value.endsWith(' ') &&
    !/^(true|false|null|yes|no|on|off|y|n)$/i.test(value);
  return plain ? value : JSON.stringify(value);
}

/** Whether {@link CatalogForm} has a form for this file. */
export function hasCatalogForm(file: CatalogFile): boolean {
  return fieldsByFile[file] !== undefined;
}

/**
 * A form over the catalog's top-level entries (one row per alias) for the common fields. Edits go
 * through the YAML document model, so comments and the other fields stay as written; the result is
 * the new raw text, validated like any other edit.
 */
export function CatalogForm({
  file,
  text,
  onChange,
}: {
  file: CatalogFile;
  text: string;
  onChange: (text: string) => void;
}) {
  const fields = fieldsByFile[file] ?? [];
  const document = parseDocument(text);
  if (document.errors.length > 0 || (document.contents !== null && !isMap(document.contents))) {
    return (
      <p className="panel-empty muted">
        The form needs valid YAML with one entry per alias. Fix the raw text first (
        {document.errors[0]?.message ?? 'not a map'}).
      </p>
    );
  }
  const entries = isMap(document.contents) ? document.contents.items : [];
  const update = (alias: string, key: string, value: string): void => {
    const next = parseDocument(text);
    const node = next.getIn([alias, key], true);
    // Splice the one scalar in place, so the rest of the file keeps its exact formatting (the
    // yaml printer would normalise flow collections like `{ type: string }` file-wide).
    if (isScalar(node) && node.range) {
      const [start, end] = node.range;
      onChange(`${text.slice(0, start)}${yamlScalar(value)}${text.slice(end)}`);
      return;
    }
    next.setIn([alias, key], value);
    onChange(next.toString());
  };
  return (
    <div className="catalog-form">
      <table className="data-table" aria-label={`${file} entries`}>
        <thead>
          <tr>
            <th scope="col">Alias</th>
            {fields.map((field) => (
              <th key={field.key} scope="col">
                {field.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {entries.map((pair) => {
            const alias = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
            const entry = pair.value;
            return (
              <tr key={alias}>
                <th scope="row">
                  <code>{alias}</code>
                </th>
                {fields.map((field) => {
                  const raw = isMap(entry) ? entry.get(field.key) : undefined;
                  const value = raw === undefined || raw === null ? '' : String(raw);
                  const label = `${alias} ${field.label.toLowerCase()}`;
                  return (
                    <td key={field.key}>
                      {field.options ? (
                        <select
                          className="select"
                          aria-label={label}
                          value={value}
                          onChange={(event) => update(alias, field.key, event.target.value)}
                        >
                          {value === '' ? <option value="">(default)</option> : null}
                          {!field.options.includes(value) && value !== '' ? (
                            <option value={value}>{value}</option>
                          ) : null}
                          {field.options.map((option) => (
                            <option key={option} value={option}>
                              {option}
                            </option>
                          ))}
                        </select>
                      ) : (
                        <input
                          className="text-input"
                          aria-label={label}
                          value={value}
                          onChange={(event) => update(alias, field.key, event.target.value)}
                        />
                      )}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="muted small">Other fields (command, parameters, prices…) are edited in the raw view.</p>
    </div>
  );
}
