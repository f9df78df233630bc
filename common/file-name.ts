/**
 * Checks a new file's name as a person typed it (an agent's, a test file's): the one set of rules
 * main enforces and the page checks as the person types, each refusal naming the problem and the fix.
 */

/** Longest name, in UTF-8 bytes (far below every file system's 255, with room for temp names). */
export const MAX_FILE_NAME_BYTES = 100;

/** Windows device names: a file called `con` or `con.lua` cannot be opened there. */
const RESERVED_NAME = /^(con|prn|aux|nul|conin\$|conout\$|com[1-9¹²³]|lpt[1-9¹²³])$/i;

/** Characters Windows refuses in file names (the slashes have their own message). */
const WINDOWS_FORBIDDEN = /[<>:"|?*]/;

// Control characters (C0, DEL and C1) have no place in a file name.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Characters that show as nothing, or change the direction of the text around them: format
 * characters (Unicode category Cf: zero-width spaces and joiners, direction marks, embeddings,
 * overrides and isolates, the byte order mark, the Arabic letter mark...), the line and paragraph
 * separators, and lone surrogates (no file system can store them). A name with one can look like
 * another name, or like a harmless one.
 */
const INVISIBLE = /[\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/**
 * Characters that draw nothing although Unicode counts them as letters or marks: variation
 * selectors, the combining grapheme joiner, the Hangul fillers (Default_Ignorable_Code_Point).
 */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/u;

/** What kind of file is named: its words in messages, where it lives, its extension and an example. */
export interface FileNameKind {
  /** `agent name`, `test file name`. */
  noun: string;
  /** The folder files of this kind live directly in (`agents`, `tests`). */
  folder: string;
  /** `.lua`, `.yaml`: dropped when typed, added to the file. */
  extension: string;
  /** A good name, as messages suggest it (`my-agent`). */
  example: string;
}

export const AGENT_FILE_NAME: FileNameKind = {
  noun: 'agent name',
  folder: 'agents',
  extension: '.lua',
  example: 'my-agent',
};
export const TEST_FILE_NAME: FileNameKind = {
  noun: 'test file name',
  folder: 'tests',
  extension: '.yaml',
  example: 'my-tests',
};

/** How two names compare: compatibility forms folded (ｆｕｌｌ = full), case ignored. */
export function fileNameKey(name: string): string {
  return name.normalize('NFKC').toLowerCase();
}

/** `U+202E` for a character. */
function codePoint(character: string): string {
  return `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * `typed` checked as a new file's name of `kind`: the name without its extension (composed, NFC),
 * or the sentence that says what is wrong with it and what to type instead.
 */
export function checkFileName(typed: string, kind: FileNameKind): { name: string } | { problem: string } {
  // One spelling per name: composed (NFC), so café typed either way is the same file everywhere.
  const composed = typed.normalize('NFC');
  const name = composed.toLowerCase().endsWith(kind.extension) ? composed.slice(0, -kind.extension.length) : composed;
  const shown = JSON.stringify(typed.length > 200 ? `${typed.slice(0, 200)}…` : typed);
  const refuse = (problem: string, fix: string) => ({ problem: `the ${kind.noun} ${shown} ${problem}; ${fix}` });
  if (name.trim() === '') return refuse('is empty', `type a name such as ${kind.example}`);
  if (CONTROL.test(name)) return refuse('contains a control character', 'use letters, digits, - or _');
  const invisible = (INVISIBLE.exec(name) ?? IGNORABLE.exec(name))?.[0];
  if (invisible !== undefined)
    return refuse(
      `contains the invisible or direction-changing character ${codePoint(invisible)}`,
      'remove it (it can make a name look like another one); use letters, digits, - or _',
    );
  if (/[\\/]/.test(name))
    return refuse(
      'contains a slash or backslash',
      `${kind.noun.replace(/ name$/, '')}s live directly in ${kind.folder}/: use - or _ instead`,
    );
  if (name === '.' || name === '..' || name.startsWith('.'))
    return refuse('starts with a dot (a hidden file, or the folder itself)', 'start it with a letter or digit');
  if (/[. ]$/.test(name) || /^\s|\s$/.test(name))
    return refuse('begins or ends with a space or ends with a dot', 'remove them (Windows cannot keep such a name)');
  if (WINDOWS_FORBIDDEN.test(name))
    return refuse('contains one of < > : " | ? *', 'use letters, digits, - or _ instead');
  if (RESERVED_NAME.test(name.split('.')[0]!))
    return refuse(
      'is a reserved device name on Windows (CON, PRN, AUX, NUL, CONIN$, CONOUT$, COM1-9, LPT1-9)',
      'pick another name',
    );
  // A name starts with a letter or digit: not a mark that draws on nothing, nor a dash or underscore.
  if (!/^[\p{L}\p{N}]/u.test(name))
    return refuse('does not start with a letter or digit', `start it with one, as in ${kind.example}`);
  // Letters and digits of any script, -, _ and dots inside. A space or a sign would need quoting at
  // the terminal and in a test case's `agent:`.
  const other = /[^\p{L}\p{M}\p{N}._-]/u.exec(name)?.[0];
  if (other !== undefined)
    return refuse(
      other === ' '
        ? 'contains a space'
        : /\s/u.test(other)
          ? `contains the space character ${codePoint(other)}`
          : `contains ${JSON.stringify(other)}`,
      `use letters, digits, - or _ instead (${kind.example}, not ${kind.example.replace('-', ' ')})`,
    );
  const bytes = new TextEncoder().encode(name).length;
  if (bytes > MAX_FILE_NAME_BYTES)
    return refuse(`is ${bytes} bytes long`, `keep it to ${MAX_FILE_NAME_BYTES} bytes (UTF-8)`);
  return { name };
}
