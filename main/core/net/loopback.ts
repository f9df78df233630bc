/**
 * Whether a URL's host is this machine's loopback interface: `localhost` (and names under it),
 * `127.0.0.0/8` and `[::1]`. A request there never leaves the machine; anything else may.
 */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
