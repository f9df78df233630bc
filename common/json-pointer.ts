/** JSON pointers (RFC 6901): `/a/b~1c` names key `b/c` inside key `a`. */

/** Encodes one segment: `~` becomes `~0`, `/` becomes `~1`. */
export function escapePointerSegment(segment: string | number): string {
  return String(segment).replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Decodes one segment (the inverse of {@link escapePointerSegment}). */
export function unescapePointerSegment(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

/** Builds a pointer from segments: `['a', 'b/c']` -> `/a/b~1c`; `[]` -> `` (the whole document). */
export function toPointer(segments: readonly (string | number)[]): string {
  return segments.map((segment) => `/${escapePointerSegment(segment)}`).join('');
}

/** Splits a pointer into decoded segments: `/a/b~1c` -> `['a', 'b/c']`; `` -> `[]`. */
export function pointerSegments(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map(unescapePointerSegment);
}
