import { loadWorkspace } from '../../../main/core/catalog/workspace.js';
import { currentConfigDir } from '../../../main/core/trust/config-dir.js';
import { TrustStore } from '../../../main/core/trust/trust-store.js';

/**
 * Trusts the workspace at `root` as it is now, in this test run's config folder (test/temporary-folder.ts
 * points PROMPTFORGE_CONFIG_DIR there), as `promptforge trust --yes` would. For tests whose subject is
 * not trust itself but a command tool, an MCP server or a key origin that only a trusted workspace gets.
 */
export async function trustForTests(root: string): Promise<void> {
  const store = new TrustStore(currentConfigDir());
  const workspace = await loadWorkspace(root);
  await store.trust(workspace, (await store.workspaceTrust(workspace)).digest, 'cli --yes');
}

/** Approves `origin` for `provider`'s key in this test run's config folder, as `promptforge trust --allow-key` would. */
export async function approveKeyOriginForTests(provider: string, origin: string): Promise<void> {
  await new TrustStore(currentConfigDir()).approveKeyOrigin(provider, new URL(origin).origin, 'cli --yes');
}
