/** Values made on first use: a module that defines one pays for it only when something reads it. */

/** A getter that calls `make` the first time it is called and returns that same value after. */
export function lazy<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}
