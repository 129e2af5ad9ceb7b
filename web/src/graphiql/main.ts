// GraphiQL served by vaultgraph at GET /graphql, bundled here so the page needs no CDN (a machine offline gets the
// IDE too): React, GraphiQL and its styles all come from this build. Queries go to /graphql on this origin, and
// subscriptions over graphql-transport-ws to the same path; headers typed in the editor ride along (an API key,
// or X-Vaultgraph-Tenant in development mode).
import { createGraphiQLFetcher } from "@graphiql/toolkit";
import { GraphiQL } from "graphiql";
import "graphiql/graphiql.css";
import { createElement } from "react";
import { createRoot } from "react-dom/client";
import "./graphiql.css";

const url = new URL("/graphql", window.location.href);
const subscriptionUrl = new URL(url);
subscriptionUrl.protocol = url.protocol === "https:" ? "wss:" : "ws:";

const fetcher = createGraphiQLFetcher({ url: url.toString(), subscriptionUrl: subscriptionUrl.toString() });
const query = new URLSearchParams(window.location.search).get("q") ?? undefined;

const root = document.getElementById("graphiql");
if (root !== null) {
  createRoot(root).render(
    createElement(GraphiQL, {
      fetcher,
      defaultQuery: "# vaultgraph: Ctrl-Enter runs the query\n{\n  documents(first: 5) {\n    totalCount\n    edges { node { title path } }\n  }\n}\n",
      query,
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: true,
      inputValueDeprecation: true,
    }),
  );
}
