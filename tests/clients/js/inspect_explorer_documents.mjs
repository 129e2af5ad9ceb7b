// graphql-inspector validating the GraphQL documents the web explorer sends against the schema. The documents are
// found in the explorer's TypeScript itself, parsed with @babel/parser (no regex over source): every string or
// template literal that opens like an operation (`query|mutation|subscription [Name] (` or `{`) is one. Its text is
// folded statically: template parts, `+`, and identifiers naming a module-level `const` of the same file or one
// imported from a sibling module (queries.ts's field lists). A literal with a part only known at run time (a
// selection built from the schema's capabilities) cannot be checked here and is listed as dynamic, with the part.
// Prints one JSON line.
// Usage: node inspect_explorer_documents.mjs <schema.graphql> <web/src>
import { parse as parseTypeScript } from "@babel/parser";
import { validate } from "@graphql-inspector/core";
import { GraphQLError, Source, buildSchema, parse } from "graphql";
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

const [schemaPath, srcDir] = process.argv.slice(2);
const OPERATION = /^\s*(query|mutation|subscription)(\s+[_A-Za-z][_0-9A-Za-z]*)?\s*[({]/;

function children(node) {
  return Object.entries(node)
    .filter(([key]) => key !== "loc" && key !== "start" && key !== "end" && !key.endsWith("Comments"))
    .flatMap(([, value]) => (Array.isArray(value) ? value : [value]))
    .filter((value) => value && typeof value.type === "string");
}

function* walk(node) {
  yield node;
  for (const child of children(node)) yield* walk(child);
}

// One module: its AST, its module-level consts (a name declared twice anywhere in the file is shadowed somewhere,
// so it is not folded), and the names it imports from sibling modules.
const modules = new Map();
function load(file) {
  if (modules.has(file)) return modules.get(file);
  const text = readFileSync(file, "utf8");
  const ast = parseTypeScript(text, { sourceType: "module", plugins: ["typescript"] });
  const declared = new Map();
  for (const node of walk(ast.program)) {
    if (node.type === "VariableDeclarator" && node.id.type === "Identifier") {
      const name = node.id.name;
      declared.set(name, declared.has(name) ? null : node);
    }
  }
  const consts = new Map();
  const imports = new Map();
  for (let statement of ast.program.body) {
    if (statement.type === "ExportNamedDeclaration" && statement.declaration) statement = statement.declaration;
    if (statement.type === "VariableDeclaration" && statement.kind === "const") {
      for (const declarator of statement.declarations) {
        const name = declarator.id.name;
        if (declarator.init && declared.get(name) === declarator) consts.set(name, declarator.init);
      }
    }
    if (statement.type === "ImportDeclaration" && statement.source.value.startsWith("./")) {
      const from = join(srcDir, `${statement.source.value.slice(2).replace(/\.(ts|js)$/, "")}.ts`);
      for (const specifier of statement.specifiers) {
        if (specifier.type === "ImportSpecifier" && !declared.has(specifier.local.name)) {
          imports.set(specifier.local.name, { from, name: specifier.imported.name });
        }
      }
    }
  }
  const module = { file, text, ast, consts, imports };
  modules.set(file, module);
  return module;
}

// The literal's text, or { unresolved } naming the first part that is only known at run time.
function fold(node, module) {
  switch (node.type) {
    case "StringLiteral":
      return node.value;
    case "TemplateLiteral": {
      let text = node.quasis[0].value.cooked;
      for (let i = 0; i < node.expressions.length; i++) {
        const part = fold(node.expressions[i], module);
        if (typeof part !== "string") return part;
        text += part + node.quasis[i + 1].value.cooked;
      }
      return text;
    }
    case "BinaryExpression": {
      if (node.operator !== "+") break;
      const left = fold(node.left, module);
      if (typeof left !== "string") return left;
      const right = fold(node.right, module);
      return typeof right === "string" ? left + right : right;
    }
    case "TSAsExpression":
    case "TSSatisfiesExpression":
      return fold(node.expression, module);
    case "Identifier": {
      if (module.consts.has(node.name)) return fold(module.consts.get(node.name), module);
      const imported = module.imports.get(node.name);
      if (imported) {
        const other = load(imported.from);
        if (other.consts.has(imported.name)) return fold(other.consts.get(imported.name), other);
      }
      break;
    }
  }
  return { unresolved: module.text.slice(node.start, node.end) };
}

const documents = [];
const dynamic = [];
const syntaxErrors = [];
const files = readdirSync(srcDir).filter((name) => name.endsWith(".ts") && !name.endsWith(".d.ts")).sort();
for (const name of files) {
  const module = load(join(srcDir, name));
  for (const node of walk(module.ast.program)) {
    const head = node.type === "StringLiteral" ? node.value
      : node.type === "TemplateLiteral" ? node.quasis[0].value.cooked : null;
    // A template may open with a part (`query ${name} {`): its head then ends before the brace it will have.
    const opensWithPart = node.type === "TemplateLiteral" && node.expressions.length > 0;
    if (head === null || !OPERATION.test(opensWithPart ? `${head}{` : head)) continue;
    const where = `${relative(join(srcDir, ".."), module.file)}:${node.loc.start.line}`;
    const text = fold(node, module);
    if (typeof text !== "string") {
      dynamic.push({ where, unresolved: text.unresolved });
      continue;
    }
    try {
      parse(text);
      documents.push(new Source(text, where));
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      syntaxErrors.push({ where, message: error.message });
    }
  }
}

const schema = buildSchema(readFileSync(schemaPath, "utf8"));
const invalid = validate(schema, documents);
const messages = (key) => invalid.flatMap((doc) => doc[key].map((error) => ({ where: doc.source.name,
  message: error.message })));
console.log(JSON.stringify({
  checked: documents.map((doc) => doc.name),
  dynamic,
  errors: [...syntaxErrors, ...messages("errors")],
  deprecated: messages("deprecated"),
}));
