// The explorer is served by vaultgraph itself (web/dist mounted at "/"); `npm run dev` proxies the API to a
// running `make run` so the front end can be worked on with hot reload.
import { defineConfig } from "vite";

const api = process.env.VAULTGRAPH_URL ?? "http://127.0.0.1:8000";

export default defineConfig({
  base: "/",
  build: { outDir: "dist", emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 1500 },
  server: {
    proxy: {
      "/graphql": { target: api, ws: true, changeOrigin: true },
      "/healthz": { target: api },
    },
  },
});
