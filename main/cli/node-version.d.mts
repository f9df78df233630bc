// Types of node-version.mjs (plain JavaScript, run by the bin with no loader).
export function engineFloor(enginesNode: string): [number, number, number] | null;
export function warnIfNodeTooOld(packageJson: string | URL): void;
