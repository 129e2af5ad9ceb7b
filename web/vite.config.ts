// The explorer is served by vaultgraph itself (web/dist mounted at "/"); `npm run dev` proxies the API to a
// running `make run` so the front end can be worked on with hot reload.
import { defineConfig } from "vite";

const api = process.env.VAULTGRAPH_URL ?? "http://127.0.0.1:8000";

export default defineConfig({
  base: "/",
  build: {
    outDir: "dist", emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 3000,
    // Two pages: the explorer ("/") and GraphiQL (served by the GraphQL view at GET /graphql, assets from here).
    rollupOptions: {
      input: { main: "index.html", graphiql: "graphiql.html" },
      // GraphiQL's React parts carry "use client" (a React Server Components hint that means nothing in a browser
      // bundle): the bundler's notice about each is noise.
      onwarn(warning, warn) {
        if (warning.code !== "MODULE_LEVEL_DIRECTIVE") warn(warning);
      },
    },
  },
  server: {
    proxy: {
      "/graphql": { target: api, ws: true, changeOrigin: true },
      "/healthz": { target: api },
    },
  },
});
