import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findWorkspaceRoot } from '../../../main/core/catalog/workspace-root.js';
import { folderTree } from './folder-tree.js';

/** Finding the workspace from a folder inside it (the refusals are in test/node/attack/discovery-*). */

const { top, folder } = folderTree('pf-workspace-root-');

describe('findWorkspaceRoot', () => {
  it('finds the nearest folder holding a catalog file, from it or from a folder below', async () => {
    const outer = folder();
    writeFileSync(path.join(outer, 'models.yaml'), '{}\n');
    const inner = folder(outer);
    writeFileSync(path.join(inner, 'promptforge.yaml'), '{}\n');
    const deep = folder(folder(inner));
    expect(await findWorkspaceRoot(deep)).toBe(inner);
    expect(await findWorkspaceRoot(inner)).toBe(inner);
    expect(await findWorkspaceRoot(path.join(inner, 'no-such-folder'))).toBe(inner);
    expect(await findWorkspaceRoot(outer)).toBe(outer);
  });

  it('finds nothing without a catalog file (a folder named like one does not count)', async () => {
    const dir = folder();
    mkdirSync(path.join(dir, 'tools.yaml'));
    expect(await findWorkspaceRoot(folder(dir))).toBeUndefined();
  });

  it.skipIf(process.platform === 'win32')(
    'takes a folder writable by your own group, and a catalog file linked to a file of yours',
    async () => {
      const dir = folder(top, 0o775);
      const elsewhere = folder();
      writeFileSync(path.join(elsewhere, 'models.yaml'), '{}\n');
      symlinkSync(path.join(elsewhere, 'models.yaml'), path.join(dir, 'models.yaml'));
      expect(await findWorkspaceRoot(dir)).toBe(dir);
    },
  );

  it.skipIf(process.platform === 'win32')(
    'takes a catalog file linked into a sticky world-writable folder (no one else can replace a file of yours there)',
    async () => {
      const sticky = folder(top, 0o1777);
      writeFileSync(path.join(sticky, 'tools.yaml'), '{}\n');
      const dir = folder();
      symlinkSync(path.join(sticky, 'tools.yaml'), path.join(dir, 'tools.yaml'));
      expect(await findWorkspaceRoot(dir)).toBe(dir);
    },
  );
});
