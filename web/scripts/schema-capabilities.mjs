// @ts-check
/**
 * Writes src/schema.generated.ts, what the explorer knows of the API (src/capabilities.ts), from the repository's
 * schema.graphql: the explorer boots without introspection, which production servers turn off
 * (VAULTGRAPH_INTROSPECTION=false). `--check` writes nothing and fails when the file is not what schema.graphql
 * gives (`npm run build` and tests/web/test_schema_capabilities.py run it so); without it, the file is rewritten
 * (`npm run generate:schema`).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { buildSchema, introspectionFromSchema } from "graphql";

const SDL = fileURLToPath(new URL("../../schema.graphql", import.meta.url));
const TARGET = fileURLToPath(new URL("../src/schema.generated.ts", import.meta.url));

/** @param {any} ref */
function typeRef(ref) {
  return { kind: ref.kind, name: ref.name ?? null, ofType: ref.ofType ? typeRef(ref.ofType) : null };
}

/** @param {any} value */
const named = (value) => ({ name: value.name, type: typeRef(value.type) });

export function generate() {
  const { __schema: schema } = introspectionFromSchema(buildSchema(readFileSync(SDL, "utf8")), { descriptions: false });
  const types = schema.types.filter((t) => !t.name.startsWith("__")).map((/** @type {any} */ t) => ({
    kind: t.kind,
    name: t.name,
    fields: t.fields ? t.fields.map((/** @type {any} */ f) => ({ ...named(f), args: f.args.map(named) })) : null,
    inputFields: t.inputFields ? t.inputFields.map(named) : null,
    enumValues: t.enumValues ? t.enumValues.map((/** @type {any} */ v) => ({ name: v.name })) : null,
    possibleTypes: t.possibleTypes ? t.possibleTypes.map((/** @type {any} */ p) => ({ name: p.name })) : null,
  }));
  const roots = {
    Query: schema.queryType?.name ?? null,
    Mutation: schema.mutationType?.name ?? null,
    Subscription: schema.subscriptionType?.name ?? null,
  };
  return [
    "// Generated from schema.graphql by web/scripts/schema-capabilities.mjs (`npm run generate:schema`): do not edit.",
    "// What the explorer knows of the API without introspection; tests/web/test_schema_capabilities.py checks it.",
    'import type { SchemaShape } from "./capabilities";',
    "",
    "export const SCHEMA: SchemaShape = {",
    `  roots: ${JSON.stringify(roots)},`,
    "  types: [",
    ...types.map((t) => `    ${JSON.stringify(t)},`),
    "  ],",
    "};",
    "",
  ].join("\n");
}

const wanted = generate();
if (process.argv.includes("--check")) {
  let present = "";
  try {
    present = readFileSync(TARGET, "utf8");
  } catch {
    // missing: reported below
  }
  if (present !== wanted) {
    console.error("web/src/schema.generated.ts does not match schema.graphql: run `cd web && npm run generate:schema`");
    process.exit(1);
  }
} else {
  writeFileSync(TARGET, wanted);
}
