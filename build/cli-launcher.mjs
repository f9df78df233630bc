// The `promptforge` launcher the packaged app ships beside its executable. It runs the CLI the
// app carries in resources/app.asar.unpacked (its bin, its bundle in out/cli, and the app's own
// copies of the runtime packages it loads: electron-builder.yml's asarUnpack) with the app's own
// Electron as Node (ELECTRON_RUN_AS_NODE=1), so an installed studio needs no separate Node, and
// Node reads the CLI as plain files (no asar support involved). Pure: what to write where, per
// platform; build/after-pack.mjs writes it, test/node/packaging runs it in a packed app.

/** Where the CLI's files are, under the app's resources folder: the archive's unpacked half. */
export const CLI_RESOURCES = 'app.asar.unpacked';
/** The bin inside {@link CLI_RESOURCES}. */
export const CLI_BIN = 'main/cli/promptforge.mjs';

/** `text` inside double quotes for sh: no expansion of $, `, \ or ". */
function shQuoted(text) {
  if (/[\n\r\0]/.test(text)) throw new Error(`cli launcher: ${JSON.stringify(text)} holds a line break or NUL`);
  return `"${text.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`;
}

/** `%~dp0` (the launcher's folder) and `text` inside double quotes for cmd.exe, which has no escape for " or %. */
function cmdQuotedBeside(text) {
  if (/["%\n\r\0]/.test(text)) throw new Error(`cli launcher: ${JSON.stringify(text)} cannot be quoted for cmd.exe`);
  return `"%~dp0${text}"`;
}

function shLauncher(executable, cli) {
  return [
    '#!/bin/sh',
    '# promptforge: the PromptForge Studio command line (docs/cli.md), run by the app’s own',
    '# Electron as Node. Works through a symlink (e.g. /usr/bin/promptforge): the app folder is',
    '# where the real file is.',
    'here=$(dirname "$(readlink -f "$0")")',
    `ELECTRON_RUN_AS_NODE=1 exec "$here"/${shQuoted(executable)} "$here"/${shQuoted(cli)} "$@"`,
    '',
  ].join('\n');
}

/**
 * The launcher for `platform` (Node's names: linux, darwin, mas, win32), as a path relative to the
 * packed app folder (electron-builder's appOutDir), its text and file mode.
 * `executableName` is the Linux executable; `productFilename` names the .app and the .exe.
 */
export function cliLauncher({ platform, executableName, productFilename }) {
  const cli = `${CLI_RESOURCES}/${CLI_BIN}`;
  switch (platform) {
    case 'linux':
      return { path: 'promptforge', mode: 0o755, text: shLauncher(executableName, `resources/${cli}`) };
    case 'darwin':
    case 'mas':
      return {
        path: `${productFilename}.app/Contents/MacOS/promptforge`,
        mode: 0o755,
        text: shLauncher(productFilename, `../Resources/${cli}`),
      };
    case 'win32':
      return {
        path: 'promptforge.cmd',
        mode: 0o644,
        text: [
          '@echo off',
          'rem promptforge: the PromptForge Studio command line, run by the app’s own Electron as Node.',
          'setlocal',
          'set ELECTRON_RUN_AS_NODE=1',
          `${cmdQuotedBeside(`${productFilename}.exe`)} ${cmdQuotedBeside(`resources\\${cli.replaceAll('/', '\\')}`)} %*`,
          '',
        ].join('\r\n'),
      };
    default:
      throw new Error(`cli launcher: no launcher for platform "${platform}" (linux, darwin, mas or win32)`);
  }
}
