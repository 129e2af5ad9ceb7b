// urql with graphcache, its normalized cache, in node, schema-aware (the introspection is built from schema.graphql,
// so graphcache matches the `Item` interface exactly). Through urql it saves a target note and then a note linking to
// it (saveNote), reads the linking note's `outgoing` and the target's `backlinks` from the network, and then reads
// both again from the cache alone: graphcache stores a Link once by id, so if the two fields disagreed about the same
// link (issue 18: backlinks read resolved links as ghosts) the later write would show through the earlier query.
// Every graphcache warning is recorded, and there should be none: without any `keys` config, every type it meets has
// an id or is one graphcache embeds by its own convention (*Connection, *Edge, PageInfo; a mutation's payload).
// Prints one JSON line.
// Usage: node urql_graphcache.mjs <http url> <tenant> <schema.graphql> <target title> <linking title>
import { Client, fetchExchange, gql } from "@urql/core";
import { cacheExchange } from "@urql/exchange-graphcache";
import { buildSchema, introspectionFromSchema } from "graphql";
import { readFileSync } from "node:fs";

const [url, tenant, schemaPath, targetTitle, linkingTitle] = process.argv.slice(2);
const warnings = [];
console.warn = (...args) => warnings.push(args.map(String).join(" "));

const cache = cacheExchange({
  schema: introspectionFromSchema(buildSchema(readFileSync(schemaPath, "utf8"))),
  // graphcache's cache redirect: `node(id:)` of a link reads the one normalized Link record, so the test can look
  // at the entity itself (cache-only: never asked of the server).
  resolvers: { Query: { node: (_parent, args) => ({ __typename: "Link", id: args.id }) } },
});
const client = new Client({
  url,
  exchanges: [cache, fetchExchange],
  fetchOptions: { headers: { "X-Vaultgraph-Tenant": tenant } },
});

const SAVE = gql`
  mutation Save($title: String!, $body: String!) {
    saveNote(input: { title: $title, body: $body }) { note { id title } }
  }
`;
// The same selection of a link through both fields; __typename asked for, so it shows in the printed JSON.
const LINK_READ = gql`
  fragment LinkRead on Link {
    __typename id type ref isGhost
    from { __typename id title }
    to { __typename id title }
  }
`;
const OUTGOING = gql`
  query Outgoing($id: ID!) { note(id: $id) { id title outgoing { edges { node { ...LinkRead } } } } }
  ${LINK_READ}
`;
const BACKLINKS = gql`
  query Backlinks($id: ID!) { note(id: $id) { id title backlinks { edges { node { ...LinkRead } } } } }
  ${LINK_READ}
`;

const LINK = gql`
  query Link($id: ID!) {
    node(id: $id) { __typename id ... on Link { isGhost from { __typename id } to { __typename id } } }
  }
`;

async function run(operation) {
  const result = await operation.toPromise();
  if (result.error) throw result.error;
  return result;
}

const target = await run(client.mutation(SAVE, { title: targetTitle, body: "The target." }));
const targetId = target.data.saveNote.note.id;
const linking = await run(client.mutation(SAVE, { title: linkingTitle, body: `See [[${targetTitle}]].` }));
const linkingId = linking.data.saveNote.note.id;

const network = {
  outgoing: (await run(client.query(OUTGOING, { id: linkingId }, { requestPolicy: "network-only" }))).data,
  backlinks: (await run(client.query(BACKLINKS, { id: targetId }, { requestPolicy: "network-only" }))).data,
};
// Both answers are in the cache now, the Link entity written twice; read each back without the network.
const outgoingCached = await run(client.query(OUTGOING, { id: linkingId }, { requestPolicy: "cache-only" }));
const backlinksCached = await run(client.query(BACKLINKS, { id: targetId }, { requestPolicy: "cache-only" }));
const cached = { outgoing: outgoingCached.data, backlinks: backlinksCached.data };
const linkId = network.outgoing.note.outgoing.edges[0]?.node.id;
const entity = await run(client.query(LINK, { id: linkId }, { requestPolicy: "cache-only" }));
console.log(JSON.stringify({
  targetId,
  linkingId,
  network,
  cached,
  entity: entity.data.node,
  cacheOutcomes: [outgoingCached, backlinksCached, entity].map((result) => result.operation.context.meta?.cacheOutcome),
  warnings,
}));
