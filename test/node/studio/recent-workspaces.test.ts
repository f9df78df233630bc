import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContractMethodName, ContractRequest, ContractResponse } from '../../../common/contract.js';
import type { IpcError } from '../../../common/contract-ipc.js';
import { MAX_RECENT_WORKSPACES, RECENT_WORKSPACES_FILE } from '../../../main/core/studio/recent-workspaces.js';
import { createStudioHandlers, dispatchContractCall } from '../../../main/core/studio/studio-handlers.js';
import { StudioService } from '../../../main/core/studio/studio-service.js';
import { testPool } from '../run/run-harness.js';
import { pressStandIn } from './press-stand-in.js';
import { examples } from './studio-harness.js';
import { mapSecretStore, quietLogger } from '../../fixtures/stubs.js';

/**
 * Recent workspaces: the third source of folders the page may open (after the folder dialog and
 * the example). They are kept in the user's config folder by main, never by the page, and a recent
 * one opens only while it is still the folder that was opened, and still the person's alone.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function folder(prefix: string, hello = `log('${prefix}')`): string {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  mkdirSync(path.join(root, 'agents'));
  writeFileSync(path.join(root, 'agents', 'hello.lua'), `${hello}\n`);
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

/** A studio on `configDirectory` (a restart is a second one on the same folder), driven through its contract. */
function studioOn(configDirectory: string) {
  const folders: string[] = [];
  const userDataDirectory = mkdtempSync(path.join(tmpdir(), 'pf-recent-data-'));
  const service = new StudioService({
    userDataDirectory,
    examplesDirectory: examples,
    configDirectory,
    secrets: mapSecretStore(),
    pool: testPool(),
    confirmPerson: async () => true,
    // Main's folder dialog, a stand-in: it answers the folders the test queued.
    chooseFolder: async () => folders.shift() ?? null,
    emit: () => undefined,
  });
  cleanups.push(async () => {
    await service.close();
    rmSync(userDataDirectory, { recursive: true, force: true });
  });
  const handlers = createStudioHandlers({ appName: 'test', appVersion: '0', userDataDirectory, service });
  const invoke = (method: ContractMethodName, request: unknown) =>
    dispatchContractCall(handlers, method, request, quietLogger, pressStandIn());
  const call = async <M extends ContractMethodName>(method: M, request: ContractRequest<M>) => {
    const result = await invoke(method, request);
    if (!result.ok) throw new Error(`${method}: ${result.error.code}: ${result.error.message}`);
    return result.value as ContractResponse<M>;
  };
  const fail = async (method: ContractMethodName, request: unknown): Promise<IpcError> => {
    const result = await invoke(method, request);
    if (result.ok) throw new Error(`${method} succeeded`);
    return result.error;
  };
  return {
    service,
    call,
    fail,
    /** Opens `dir` as the person does: main's folder dialog answers it, then the page opens that path. */
    async choose(dir: string) {
      folders.push(dir);
      const { path: chosen } = await call('workspace:choose', {});
      return call('workspace:open', { path: chosen! });
    },
  };
}

function configFolder(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-recent-config-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('recent workspaces', () => {
  it('a chosen folder becomes recent; after a restart the page opens it from the list, without the dialog', async () => {
    const config = configFolder();
    const first = studioOn(config);
    const a = folder('pf-recent-a-');
    await first.choose(a);
    const listed = await first.call('workspace:recent', {});
    expect(listed).toMatchObject({ problem: null, workspaces: [{ name: path.basename(a), path: a, exists: true }] });
    expect(Date.parse(listed.workspaces[0]!.lastOpened)).not.toBeNaN();
    // The file is main's own, in the config folder, owner-only.
    const file = path.join(config, RECENT_WORKSPACES_FILE);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ version: 1, workspaces: [{ path: a }] });

    const restarted = studioOn(config);
    expect((await restarted.call('workspace:open', { path: a })).root).toBe(a);
    expect((await restarted.call('file:read', { path: 'agents/hello.lua' })).text).toContain('pf-recent-a-');
  });

  it('keeps at most ten, newest first, one entry per real path (a link to a folder is that folder)', async () => {
    const config = configFolder();
    const s = studioOn(config);
    const opened: string[] = [];
    for (let index = 0; index < MAX_RECENT_WORKSPACES + 2; index += 1) {
      const dir = folder(`pf-recent-${index}-`);
      await s.choose(dir);
      opened.push(dir);
    }
    const link = `${opened.at(-1)}-link`;
    symlinkSync(opened.at(-1)!, link);
    cleanups.push(() => rmSync(link, { force: true }));
    // Chosen through a link: the folder opened (and recorded) is its real path.
    expect((await s.choose(link)).root).toBe(opened.at(-1));
    const { workspaces } = await s.call('workspace:recent', {});
    expect(workspaces.map((entry) => entry.path)).toEqual(opened.slice(-MAX_RECENT_WORKSPACES).reverse());
    // After a restart, the oldest (fallen off) is no longer a folder the page may open; the newest is.
    const restarted = studioOn(config);
    expect((await restarted.fail('workspace:open', { path: opened[0] })).code).toBe('not-chosen');
    expect((await restarted.call('workspace:open', { path: opened.at(-1)! })).root).toBe(opened.at(-1));
  });

  it('opens a recent folder only by its path exactly as listed', async () => {
    const config = configFolder();
    const a = folder('pf-recent-spell-');
    await studioOn(config).choose(a);
    const s = studioOn(config);
    const link = `${a}-link`;
    symlinkSync(a, link);
    cleanups.push(() => rmSync(link, { force: true }));
    for (const spelling of [`${a}/`, `${a}/.`, `${a}/../${path.basename(a)}`, a.toUpperCase(), link])
      expect((await s.fail('workspace:open', { path: spelling })).code, spelling).toBe('not-chosen');
    expect(s.service.workspaceRoot).toBeNull();
  });

  it('refuses a recent folder that is gone, replaced by a link, made again, or writable by others; the list says which still exist', async () => {
    const config = configFolder();
    const first = studioOn(config);
    const [gone, linked, remade, shared, fine] = ['gone', 'linked', 'remade', 'shared', 'fine'].map((name) =>
      folder(`pf-recent-${name}-`),
    );
    for (const dir of [gone!, linked!, remade!, shared!, fine!]) await first.choose(dir);
    const elsewhere = folder('pf-recent-elsewhere-', "log('not the person’s')");

    rmSync(gone!, { recursive: true });
    rmSync(linked!, { recursive: true });
    symlinkSync(elsewhere, linked!);
    renameSync(remade!, `${remade}-moved`);
    cleanups.push(() => rmSync(`${remade}-moved`, { recursive: true, force: true }));
    mkdirSync(remade!);
    chmodSync(shared!, 0o777);

    const s = studioOn(config);
    const listed = Object.fromEntries(
      (await s.call('workspace:recent', {})).workspaces.map((entry) => [entry.path, entry.exists]),
    );
    expect(listed).toEqual({ [gone!]: false, [linked!]: false, [remade!]: false, [shared!]: true, [fine!]: true });
    const refusal = async (dir: string) => {
      const error = await s.fail('workspace:open', { path: dir });
      expect(error.code, dir).toBe('not-chosen');
      return error.message;
    };
    expect(await refusal(gone!)).toContain('it no longer exists');
    expect(await refusal(linked!)).toContain(`it resolves to ${elsewhere} now`);
    expect(await refusal(remade!)).toContain('it is another folder than the one you opened');
    expect(await refusal(shared!)).toContain('can be written by anyone (mode 0777); take that away (chmod o-w');
    expect(s.service.workspaceRoot).toBeNull();
    expect((await s.call('workspace:open', { path: fine! })).root).toBe(fine);
  });

  it('forget drops one; the page can add none, and a broken list opens nothing from it but breaks nothing else', async () => {
    const config = configFolder();
    const s = studioOn(config);
    const a = folder('pf-recent-forget-');
    const b = folder('pf-recent-keep-');
    await s.choose(a);
    await s.choose(b);
    const after = await s.call('workspace:forget-recent', { path: a });
    expect(after.workspaces.map((entry) => entry.path)).toEqual([b]);
    // Forgetting what is not listed changes nothing.
    expect((await s.call('workspace:forget-recent', { path: '/etc' })).workspaces.map((entry) => entry.path)).toEqual([
      b,
    ]);
    const restarted = studioOn(config);
    expect((await restarted.fail('workspace:open', { path: a })).code).toBe('not-chosen');

    // The example is opened by its own button: it is not listed.
    await restarted.call('workspace:open-example', {});
    expect((await restarted.call('workspace:recent', {})).workspaces.map((entry) => entry.path)).toEqual([b]);

    // A damaged list: nothing opens from it, the list says why, and choosing a folder still works.
    writeFileSync(path.join(config, RECENT_WORKSPACES_FILE), '{"version": 1, "workspaces": [{"path": "/"');
    const broken = studioOn(config);
    expect(await broken.call('workspace:recent', {})).toMatchObject({
      workspaces: [],
      problem: expect.stringContaining('not valid JSON'),
    });
    expect((await broken.fail('workspace:open', { path: b })).code).toBe('not-chosen');
    expect((await broken.choose(b)).root).toBe(b);
  });

  it('opens the real path it checked: a chosen link swapped afterwards does not move the open workspace', async () => {
    const s = studioOn(configFolder());
    const mine = folder('pf-toctou-mine-', "log('mine')");
    const theirs = folder('pf-toctou-theirs-', "log('theirs')");
    const link = `${mine}-link`;
    symlinkSync(mine, link);
    cleanups.push(() => rmSync(link, { force: true }));
    const opened = await s.choose(link);
    expect(opened.root).toBe(mine);
    // The link now leads elsewhere: the open workspace is still the folder that was checked.
    rmSync(link);
    symlinkSync(theirs, link);
    expect((await s.call('file:read', { path: 'agents/hello.lua' })).text).toBe("log('mine')\n");
    // And the link's path itself no longer opens: it resolves to another folder now.
    expect((await s.fail('workspace:open', { path: link })).message).toContain(`resolves to ${theirs} now`);
  });
});
