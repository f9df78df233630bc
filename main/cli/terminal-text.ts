/**
 * Everything the CLI prints passes through here, so text from a script, a tool, a model, a
 * catalog file or a file name cannot drive the person's terminal (clear the screen, fake a
 * status line, set the window title, write the clipboard with OSC 52, reorder text with bidi
 * overrides, or overwrite a line with a lone carriage return).
 */

// Matching control characters is the point here: they are what must not reach the terminal.
// C0 controls except tab and newline, DEL, C1 controls (0x9b is a one-byte CSI, 0x9d a one-byte
// OSC), a carriage return not followed by a newline, and the bidi embedding, override and
// isolate controls U+202A-U+202E and U+2066-U+2069.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;

/** Shows `char` as visible escape text: `\x1b` below U+0100, `\u202e` above. */
function visible(char: string): string {
  const code = char.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every control character that could steer a terminal replaced by visible escape
 * text such as `\x1b`. Newlines, tabs and CRLF line ends are kept; printable text (including
 * non-Latin scripts and emoji) is unchanged.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, visible);
}

// JSON.stringify escapes C0 controls and lone carriage returns, but leaves DEL, C1 controls and
// bidi controls raw. These are escaped as JSON `\u` escapes, so the line stays valid JSON with
// the same value.
const JSON_UNSAFE = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/** `JSON.stringify(value)` on one line, with nothing in it that could steer a terminal. */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(JSON_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `file` as one shell word: as is when it is plain, else in single quotes. */
export function shellWord(file: string): string {
  return /^[\w./@%+=:,-]+$/.test(file) ? file : `'${file.replaceAll("'", `'\\''`)}'`;
}
