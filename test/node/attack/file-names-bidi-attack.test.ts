/**
 * A cloned workspace's file named `invoice\u202Eaul.txt` would draw as "invoicetxt.lua", and one
 * with a zero-width joiner like another name: quick open (and the file tree, through the same
 * escapeHidden) draws such characters as an escape, as the run view and the editors do.
 */
import { describe, expect, it } from 'vitest';
import type { WorkspaceState } from '../../../common/studio-schemas.js';
import { quickOpenItems } from '../../../renderer/src/shell/quick-open.js';

const workspace = { root: '/w', name: 'w', agents: [], tools: [], models: [], runs: [] } as unknown as WorkspaceState;
const HIDDEN = /[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/u;

describe('quick open: file names with bidi controls and zero-width characters', () => {
  it.each([
    ['right-to-left override', 'docs/invoice\u202Eaul.txt'],
    ['zero-width joiner', 'agents-copy/deplo\u200Dy.md'],
    ['right-to-left isolate', 'notes/\u2067evil\u2069.txt'],
  ])('draws a %s as an escape, never raw', (_what, file) => {
    const [item] = quickOpenItems(workspace, [file]);
    expect(item!.label).not.toMatch(HIDDEN);
    expect(item!.detail).not.toMatch(HIDDEN);
    expect(item!.label).toMatch(/\\u(202e|200d|2067)/);
  });
});
