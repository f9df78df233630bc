// Loaded with `node --import` into Electron's own installer (node_modules/electron/install.js) by
// scripts/ensure-electron.ts. The installer downloads with the global fetch and, when that fails,
// prints only "fetch failed" and a stack trace; this wrapper reports what the attempt really saw
// (the URL, the HTTP status or the network error's code) as one JSON line on stderr, which the
// start script turns into its message, and prints the download's progress on stdout.
const PREFIX = 'promptforge-electron-download:';
const realFetch = globalThis.fetch;

function shownUrl(input) {
  try {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    if (url.username !== '' || url.password !== '') {
      url.username = '***';
      url.password = '';
    }
    return url.href;
  } catch {
    return String(input).slice(0, 500);
  }
}

function report(fields) {
  process.stderr.write(`${PREFIX}${JSON.stringify(fields)}\n`);
}

function withProgress(response) {
  const total = Number(response.headers.get('content-length'));
  if (!response.body || !Number.isFinite(total) || total <= 0) return response;
  let received = 0;
  let shown = 0;
  const counter = new globalThis.TransformStream({
    transform(chunk, controller) {
      received += chunk.byteLength;
      const tenth = Math.floor((received / total) * 10);
      if (tenth > shown) {
        shown = tenth;
        process.stdout.write(`Downloading Electron: ${tenth * 10}%\n`);
      }
      controller.enqueue(chunk);
    },
  });
  return new globalThis.Response(response.body.pipeThrough(counter), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

globalThis.fetch = async function fetchWithReport(input, init) {
  const url = shownUrl(input);
  let response;
  try {
    response = await realFetch(input, init);
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    report({
      url,
      code: typeof cause?.code === 'string' ? cause.code : undefined,
      message: cause instanceof Error ? cause.message : String(cause),
    });
    throw error;
  }
  if (!response.ok) {
    report({ url, status: response.status });
    return response;
  }
  return withProgress(response);
};
