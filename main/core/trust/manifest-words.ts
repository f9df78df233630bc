// A workspace manifest in words: what changed between two (one sentence per change) and the
// plain-text listing for the terminal, with control and direction characters spelled out.
import type { ManifestChange } from '../../../common/trust-schemas.js';
import type { WorkspaceManifest } from './workspace-manifest.js';

/**
 * What changed from `before` to `after`, item by item and file by file, as sentences: what was
 * added, what was removed, and for a changed item each line that differs, old then new.
 */
export function manifestDiff(before: WorkspaceManifest, after: WorkspaceManifest): ManifestChange[] {
  const changes: ManifestChange[] = [];
  const old = new Map(before.items.map((item) => [item.id, item]));
  const now = new Map(after.items.map((item) => [item.id, item]));
  for (const item of after.items) {
    const was = old.get(item.id);
    if (!was) {
      changes.push({
        change: 'added',
        id: item.id,
        text: `Added: ${item.title}. ${sentences([...item.details, ...item.warnings])}`,
      });
      continue;
    }
    const lines: string[] = [];
    for (const line of was.details) if (!item.details.includes(line)) lines.push(`was ${line}`);
    for (const line of item.details) if (!was.details.includes(line)) lines.push(`now ${line}`);
    for (const line of item.warnings) if (!was.warnings.includes(line)) lines.push(`new warning: ${line}`);
    if (item.title !== was.title) lines.unshift(`was titled ${was.title}`);
    if (lines.length > 0)
      changes.push({ change: 'changed', id: item.id, text: `Changed: ${item.title}: ${sentences(lines)}` });
  }
  for (const item of before.items)
    if (!now.has(item.id)) changes.push({ change: 'removed', id: item.id, text: `Removed: ${item.title}.` });
  const oldFiles = new Map(before.files.map((file) => [file.path, file.sha256]));
  const newFiles = new Map(after.files.map((file) => [file.path, file.sha256]));
  for (const [file, hash] of newFiles) {
    if (!oldFiles.has(file))
      changes.push({ change: 'added', id: `file:${file}`, text: `Added: the file ${visible(file)} is now run.` });
    else if (oldFiles.get(file) !== hash)
      changes.push({
        change: 'changed',
        id: `file:${file}`,
        text: `Changed: the contents of ${visible(file)}, which is run.`,
      });
  }
  for (const file of oldFiles.keys())
    if (!newFiles.has(file))
      changes.push({
        change: 'removed',
        id: `file:${file}`,
        text: `Removed: the file ${visible(file)} is no longer run.`,
      });
  return changes;
}

/** The manifest as plain text, for the terminal: one block per item, warnings marked. */
export function manifestText(manifest: WorkspaceManifest): string[] {
  const lines: string[] = [];
  for (const item of manifest.items) {
    lines.push(`- ${item.title} (${item.source})`);
    for (const detail of item.details) lines.push(`    ${detail}`);
    for (const warning of item.warnings) lines.push(`    warning: ${warning}`);
  }
  if (manifest.files.length > 0)
    lines.push(`- Files it runs, covered by the trust: ${manifest.files.map((file) => file.path).join(', ')}`);
  return lines;
}

/** Control and direction characters spelled out, so a name cannot hide or reorder what is shown. */
export function visible(text: string): string {
  return text.replace(
    // eslint-disable-next-line no-control-regex -- spelling control characters out is the point
    /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g,
    (character) => `\\u{${character.charCodeAt(0).toString(16)}}`,
  );
}

function sentences(lines: readonly string[]): string {
  return lines.map((line) => (/[.!?]$/.test(line) ? line : `${line}.`)).join(' ');
}

export function quoteArg(arg: string): string {
  const shown = visible(arg);
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, `'\\''`)}'`;
}
