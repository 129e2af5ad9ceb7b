// The peer of vaultgraph's benchmarks: the Neo4j GraphQL Library (@neo4j/graphql) under Apollo Server, over the
// same Neo4j and the same data. The type definitions map vaultgraph's model as a user of the library would:
// `Note` nodes, `WIKILINK` relationships with their properties, both directions. Nothing is hand-tuned: no
// @cypher fields, the library writes every Cypher statement itself.
//
//   NEO4J_URI=bolt://127.0.0.1:7695 PEER_PORT=4000 node server.mjs

import { ApolloServer } from "@apollo/server";
import { startStandaloneServer } from "@apollo/server/standalone";
import { Neo4jGraphQL } from "@neo4j/graphql";
import neo4j from "neo4j-driver";

const typeDefs = /* GraphQL */ `
  type Note @node(labels: ["Note"]) {
    id: ID!
    tenantId: String!
    slug: String!
    title: String!
    kind: String
    tags: [String!]
    createdAt: DateTime
    updatedAt: DateTime
    links: [Note!]! @relationship(type: "WIKILINK", direction: OUT, properties: "WikiLink")
    backlinks: [Note!]! @relationship(type: "WIKILINK", direction: IN, properties: "WikiLink")
  }

  type WikiLink @relationshipProperties {
    id: String
    ref: String
    label: String
    heading: String
    context: String
    origin: String
    createdAt: DateTime
  }
`;

const uri = process.env.NEO4J_URI ?? "bolt://127.0.0.1:7687";
const port = Number(process.env.PEER_PORT ?? 4000);
// The bench's Neo4j runs without auth on loopback, like vaultgraph's embedded default.
const driver = neo4j.driver(uri, neo4j.auth.basic(process.env.NEO4J_USER ?? "neo4j", process.env.NEO4J_PASSWORD ?? ""));

const schema = await new Neo4jGraphQL({ typeDefs, driver }).getSchema();
const server = new ApolloServer({ schema });
const { url } = await startStandaloneServer(server, { listen: { host: "127.0.0.1", port } });
console.log(`peer ready at ${url}`);

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, async () => {
    await server.stop();
    await driver.close();
    process.exit(0);
  });
}
