import path from 'node:path';

/**
 * The PATH a tool's process gets: the host's, without empty or relative entries. An entry such as
 * `node_modules/.bin` or `.` is looked up from the tool's working folder, inside the workspace, so
 * a cloned repository could make `node` its own file; only absolute folders are searched.
 */
export function childSearchPath(
  value: string | undefined,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (value === undefined) return undefined;
  const api = platform === 'win32' ? path.win32 : path.posix;
  return value
    .split(api.delimiter)
    .filter((entry) => entry !== '' && api.isAbsolute(entry))
    .join(api.delimiter);
}
