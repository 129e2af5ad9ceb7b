// What the server's schema offers, as this build of the explorer was made for it: src/schema.generated.ts, written
// from schema.graphql at build time (web/scripts/schema-capabilities.mjs), so the explorer boots on a server that
// refuses introspection (VAULTGRAPH_INTROSPECTION=false, as production should). Every pane asks here before it
// wires a feature, and shows the feature disabled with a note when the field is not there.

import type { Api } from "./api";
import { SCHEMA } from "./schema.generated";

export interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}

export interface ArgInfo {
  name: string;
  type: TypeRef;
}

export interface FieldInfo {
  name: string;
  args: ArgInfo[];
  type: TypeRef;
}

export interface TypeInfo {
  kind: string;
  name: string;
  fields: FieldInfo[] | null;
  inputFields: ArgInfo[] | null;
  enumValues: { name: string }[] | null;
  possibleTypes: { name: string }[] | null;
}

/** The schema as the generated module holds it: the root type names and every named type. */
export interface SchemaShape {
  roots: Record<"Query" | "Mutation" | "Subscription", string | null>;
  types: TypeInfo[];
}

// The cheapest operation there is: it tells at boot whether the server answers this browser (an API key asked
// for, the server down) before a pane finds out, and needs no introspection.
const PROBE = "query Boot { __typename }";

export function namedType(ref: TypeRef): TypeRef {
  let t = ref;
  while (t.ofType) t = t.ofType;
  return t;
}

export function isRequired(ref: TypeRef): boolean {
  return ref.kind === "NON_NULL";
}

export function typeString(ref: TypeRef): string {
  if (ref.kind === "NON_NULL") return `${typeString(ref.ofType as TypeRef)}!`;
  if (ref.kind === "LIST") return `[${typeString(ref.ofType as TypeRef)}]`;
  return ref.name ?? "";
}

export class Capabilities {
  private readonly types = new Map<string, TypeInfo>();
  private roots: Record<"Query" | "Mutation" | "Subscription", string | null> = {
    Query: "Query", Mutation: "Mutation", Subscription: null,
  };

  static async load(api: Api): Promise<Capabilities> {
    await api.request<{ __typename: string }>(PROBE);
    return Capabilities.of(SCHEMA);
  }

  static of(schema: SchemaShape): Capabilities {
    const caps = new Capabilities();
    for (const t of schema.types) caps.types.set(t.name, t);
    caps.roots = { ...schema.roots };
    return caps;
  }

  private rootName(name: string): string | null {
    return name in this.roots ? this.roots[name as keyof typeof this.roots] : name;
  }

  field(typeName: string, fieldName: string): FieldInfo | null {
    const root = this.rootName(typeName);
    if (!root) return null;
    return this.types.get(root)?.fields?.find((f) => f.name === fieldName) ?? null;
  }

  has(typeName: string, fieldName: string): boolean {
    return this.field(typeName, fieldName) !== null;
  }

  arg(typeName: string, fieldName: string, argName: string): ArgInfo | null {
    return this.field(typeName, fieldName)?.args.find((a) => a.name === argName) ?? null;
  }

  inputFields(typeName: string): ArgInfo[] {
    return this.types.get(typeName)?.inputFields ?? [];
  }

  enumValues(typeName: string): string[] {
    return (this.types.get(typeName)?.enumValues ?? []).map((v) => v.name);
  }

  kindOf(typeName: string): string | null {
    return this.types.get(typeName)?.kind ?? null;
  }

  /** The field's type name with lists and non-nulls removed. */
  fieldTypeName(typeName: string, fieldName: string): string | null {
    const f = this.field(typeName, fieldName);
    return f ? namedType(f.type).name : null;
  }

  /**
   * A selection set for a type whose exact shape this build of the explorer does not know (a payload added by a
   * later release): its scalar and enum fields, and for object fields an `id`/`title` summary, one level down.
   */
  selection(typeName: string, depth = 2): string {
    const t = this.types.get(typeName);
    if (!t) return "__typename";
    if (t.kind === "INTERFACE" || t.kind === "UNION") {
      const base = this.hasItemShape(typeName) ? "__typename id title" : "__typename";
      if (t.kind === "UNION" && depth > 0) {
        const parts = (t.possibleTypes ?? []).map((p) => `... on ${p.name} { ${this.selection(p.name, depth - 1)} }`);
        return [base, ...parts].join(" ");
      }
      return base;
    }
    if (!t.fields) return "";
    const parts: string[] = ["__typename"];
    for (const f of t.fields) {
      if (f.args.some((a) => isRequired(a.type))) continue;
      const inner = namedType(f.type);
      const kind = inner.name ? this.kindOf(inner.name) : null;
      if (kind === "SCALAR" || kind === "ENUM") {
        if (inner.name === "JSON" || f.name === "body" || f.name === "content") continue; // heavy, shown elsewhere
        parts.push(f.name);
      } else if (inner.name && depth > 0) {
        if (this.hasItemShape(inner.name)) parts.push(`${f.name} { __typename id title }`);
        else if (!/Connection$/.test(inner.name)) {
          const sub = this.selection(inner.name, depth - 1);
          if (sub) parts.push(`${f.name} { ${sub} }`);
        }
      }
    }
    return parts.join(" ");
  }

  private hasItemShape(typeName: string): boolean {
    const fields = this.types.get(typeName)?.fields ?? [];
    return fields.some((f) => f.name === "id") && fields.some((f) => f.name === "title");
  }
}
