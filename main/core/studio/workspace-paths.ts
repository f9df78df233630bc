/** Where a workspace-relative path the page names lies on disk, refused when it would leave the workspace. */
import path from 'node:path';
import { checkInsideWorkspace } from '../tools/workspace-path.js';
import { ContractError } from './contract-error.js';

/**
 * A workspace-relative path resolved inside the workspace at `root` (the schema already refused
 * `..`). A folder or file on the way may be a symbolic link: the part of the path that exists is
 * followed to its real path, which must stay inside the workspace's real path too, so a link never
 * lets a read, a write or a run reach outside it. (A link whose target is missing is refused:
 * writing through it would create its target, wherever that is.) See {@link checkInsideWorkspace}.
 */
export function resolveInWorkspace(root: string, relative: string): string {
  const outside = () => new ContractError('outside-workspace', `${relative} is outside the workspace`);
  // The workspace folder itself is not a file in it.
  if (path.resolve(root, relative) === root) throw outside();
  const checked = checkInsideWorkspace(root, relative, { missing: 'nearest' });
  if (checked.ok) return checked.path;
  switch (checked.problem) {
    case 'outside':
      throw outside();
    case 'missing':
      throw new ContractError(
        'outside-workspace',
        `${relative} goes through a symbolic link whose target is missing; remove the link or point it inside the workspace`,
      );
    case 'link-outside':
      throw new ContractError(
        'outside-workspace',
        `${relative} leads outside the workspace through a symbolic link; open the linked folder as its own workspace, or copy the file in`,
      );
  }
}
