/** The message of a thrown value: an Error's message, or the value as text (throw 'x', throw 42). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
