// @ts-check
/**
 * Prints every scenario of web/e2e/*.test.mjs as JSON (`[{ file, name, needs }]`) for tests/web/test_explorer_e2e.py,
 * which runs each one by name on a server of its own. It fails on what would let a test go unrun: a file that
 * declares no scenario, a file that registers node:test tests itself, or two scenarios with one name.
 */
import { readdir, readFile } from "node:fs/promises";

import { catalog } from "./support.mjs";

catalog.listing = true;
const here = new URL(".", import.meta.url);
const files = (await readdir(here)).filter((file) => file.endsWith(".test.mjs")).sort();
/** @type {string[]} */
const problems = [];
const listed = [];
for (const file of files) {
  const source = await readFile(new URL(file, here), "utf8");
  if (/["']node:test["']/.test(source)) {
    problems.push(`${file} imports node:test: declare its tests with scenario() from support.mjs, so pytest runs each`);
  }
  const before = catalog.scenarios.length;
  await import(new URL(file, here).href);
  const declared = catalog.scenarios.slice(before);
  if (declared.length === 0) problems.push(`${file} declares no scenario`);
  for (const found of declared) listed.push({ file: `web/e2e/${file}`, ...found });
}
const seen = new Set();
for (const { file, name } of listed) {
  if (seen.has(name)) problems.push(`${file}: a second scenario named ${JSON.stringify(name)}`);
  seen.add(name);
}
if (files.length === 0) problems.push("no web/e2e/*.test.mjs");
if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
process.stdout.write(JSON.stringify(listed));
