// A browser-like graphql-ws client: the WebSocket is the WHATWG one (node --experimental-websocket), which cannot
// set headers, so the tenant rides in connection_init only. Subscribes to enrichmentProgress (its first event) and
// runs a query over the same socket; prints one JSON line with both answers.
// Usage: node --experimental-websocket graphql_ws_subscribe.mjs <ws url> <tenant>
import { createClient } from "graphql-ws";

const [url, tenant] = process.argv.slice(2);
const client = createClient({
  url,
  webSocketImpl: globalThis.WebSocket,
  connectionParams: { "X-Vaultgraph-Tenant": tenant },
  retryAttempts: 0,
  lazy: true,
});

function first(query) {
  return new Promise((resolve, reject) => {
    let result;
    const stop = client.subscribe({ query }, {
      next: (value) => {
        result = value;
        stop();
        resolve(result);
      },
      error: (error) => reject(error instanceof Error ? error : new Error(`${error.code ?? ""} ${error.reason ?? JSON.stringify(error)}`)),
      complete: () => (result ? resolve(result) : reject(new Error("completed without a result"))),
    });
  });
}

try {
  const progress = await first("subscription { enrichmentProgress { queued running total } }");
  const notes = await first("{ notes { totalCount edges { node { title } } } }");
  console.log(JSON.stringify({ progress, notes }));
} finally {
  await client.dispose();
}
