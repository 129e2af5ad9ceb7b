// Apollo Client 4 with its persisted-queries link (automatic persisted queries) and a normalized cache, in node.
// Each HTTP request the link makes is recorded (did it carry the query? the hash? which status came back?), so the
// test can check the APQ exchange: hash only -> PersistedQueryNotFound -> hash + query; then a fresh client with an
// empty cache asks by hash only and is answered. Prints one JSON line.
// Usage: node apollo_apq.mjs <http url> <tenant> <note id>
import { ApolloClient, HttpLink, InMemoryCache, gql } from "@apollo/client";
import { PersistedQueryLink } from "@apollo/client/link/persisted-queries";
import { createHash } from "node:crypto";

const [uri, tenant, noteId] = process.argv.slice(2);
const exchanges = [];

async function recordingFetch(input, init) {
  const response = await fetch(input, init);
  const body = init?.body ? JSON.parse(init.body) : Object.fromEntries(new URL(input).searchParams);
  const extensions = typeof body.extensions === "string" ? JSON.parse(body.extensions) : body.extensions;
  exchanges.push({
    method: init?.method ?? "GET",
    hasQuery: typeof body.query === "string" && body.query.length > 0,
    hash: extensions?.persistedQuery?.sha256Hash ?? null,
    status: response.status,
    contentType: response.headers.get("content-type"),
  });
  return response;
}

function client() {
  const sha256 = (text) => createHash("sha256").update(text).digest("hex");
  const link = new PersistedQueryLink({ sha256 }).concat(
    new HttpLink({ uri, fetch: recordingFetch, headers: { "X-Vaultgraph-Tenant": tenant } }),
  );
  return new ApolloClient({ link, cache: new InMemoryCache() });
}

// A note's outgoing links and its backlinks in one query: the normalized cache stores each Note once by id.
const NOTE = gql`
  query NoteLinks($id: ID!) {
    note(id: $id) {
      id
      title
      outgoing { edges { node { id type to { id title } } } }
      backlinks { edges { node { id type from { id title } } } }
    }
  }
`;

const first = client();
const registered = await first.query({ query: NOTE, variables: { id: noteId } });
const cached = first.cache.extract();
const second = client();
const byHash = await second.query({ query: NOTE, variables: { id: noteId } });
console.log(JSON.stringify({
  exchanges,
  registered: registered.data,
  byHash: byHash.data,
  cachedNotes: Object.keys(cached).filter((key) => key.startsWith("Note:")).sort(),
}));
