/**
 * The hand-written types (src/types.ts) against the running server's
 * OpenAPI document, read with the TypeScript compiler: every schema's
 * properties are the interface's, required ones are not optional, nullable
 * ones admit null, kinds and enums agree; and every operation the document
 * lists has its method on the client. A server that grows a field or a route
 * fails this test until the client follows.
 */

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import ts from "typescript";

import { Client, Session } from "../src/index.js";
import { PACKAGE_DIR, startServer, type RunningServer } from "./server.js";

type Schema = {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  nullable?: boolean;
  enum?: unknown[];
  items?: Schema;
  allOf?: Schema[];
};

let server: RunningServer;
let doc: { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, Schema> } };

before(async () => {
  server = await startServer();
  doc = (await new Client(server.base).openapi()) as never;
});

after(async () => {
  await server.stop();
});

/** The interfaces of src/types.ts: property name -> {optional, type text}. */
function interfaces(): Map<string, Map<string, { optional: boolean; type: ts.Type; text: string }>> {
  const file = join(PACKAGE_DIR, "src/types.ts");
  const program = ts.createProgram([file], { strict: true, target: ts.ScriptTarget.ES2022, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const out = new Map<string, Map<string, { optional: boolean; type: ts.Type; text: string }>>();
  ts.forEachChild(source, (node) => {
    if (!ts.isInterfaceDeclaration(node)) return;
    const type = checker.getTypeAtLocation(node);
    const props = new Map<string, { optional: boolean; type: ts.Type; text: string }>();
    for (const p of checker.getPropertiesOfType(type)) {
      const t = checker.getTypeOfSymbolAtLocation(p, node);
      props.set(p.name, {
        optional: (p.flags & ts.SymbolFlags.Optional) !== 0,
        type: t,
        text: checker.typeToString(t),
      });
    }
    out.set(node.name.text, props);
  });
  return out;
}

function resolveRef(s: Schema): Schema {
  if (!s.$ref) return s;
  const name = s.$ref.replace("#/components/schemas/", "");
  return doc.components.schemas[name]!;
}

/** The TypeScript kinds a schema allows (ignoring null). */
function kindsOf(s: Schema): string[] {
  const r = resolveRef(s);
  if (r.enum) return r.enum.filter((v) => v !== null).map((v) => JSON.stringify(v)).sort();
  switch (r.type) {
    case "string":
      return ["string"];
    case "integer":
    case "number":
      return ["number"];
    case "boolean":
      return ["boolean"];
    case "array":
      return [`${kindsOf(r.items!).join(" | ")}[]`];
    default:
      return ["object"];
  }
}

/** The kinds a TS type text names, null and undefined dropped. */
function kindsOfText(text: string): string[] {
  return text
    .split(" | ")
    .filter((k) => k !== "null" && k !== "undefined")
    .map((k) => (k === "false" || k === "true" ? "boolean" : k))
    .filter((k, i, all) => all.indexOf(k) === i)
    .sort();
}

function compare(name: string, schema: Schema, iface: Map<string, { optional: boolean; text: string }>) {
  const s = resolveRef(schema);
  const props = s.properties ?? {};
  const required = new Set(s.required ?? []);
  assert.deepEqual([...iface.keys()].sort(), Object.keys(props).sort(), `${name}: property names`);
  for (const [key, prop] of Object.entries(props)) {
    const mine = iface.get(key)!;
    assert.equal(mine.optional, !required.has(key), `${name}.${key}: optional in TS iff not required`);
    const nullable = resolveRef(prop).nullable === true;
    assert.equal(mine.text.split(" | ").includes("null"), nullable, `${name}.${key}: null iff nullable (${mine.text})`);
    const theirs = kindsOf(prop);
    if (theirs[0] !== "object") assert.deepEqual(kindsOfText(mine.text), theirs, `${name}.${key}: ${mine.text}`);
  }
}

test("the hand-written types match the server's schemas", () => {
  const mine = interfaces();
  const named: Array<[string, string]> = [
    ["Health", "Health"],
    ["Created", "Created"],
    ["SessionState", "SessionState"],
    ["RunRequest", "RunRequest"],
    ["RunResult", "RunResult"],
    ["MindlogEntry", "MindlogEntry"],
    ["Generation", "Generation"],
    ["FileEntry", "FileEntry"],
  ];
  for (const [schema, iface] of named) {
    compare(iface, doc.components.schemas[schema]!, mine.get(iface)!);
  }
  const json = (path: string, method: string, status: string): Schema =>
    doc.paths[path]![method].responses[status].content["application/json"].schema;
  compare("Written", json("/v1/sessions/{id}/files/{path}", "put", "200"), mine.get("Written")!);
  compare("Change", json("/v1/agents/{agent}/diff", "get", "200").properties!["changes"]!.items!, mine.get("Change")!);
  compare("VerifyReport", json("/v1/agents/{agent}/verify", "post", "200"), mine.get("VerifyReport")!);
  const withFiles = json("/v1/agents/{agent}/generations/{generation}", "get", "200").allOf!;
  const files = resolveRef(withFiles[1]!).properties!["files"]!;
  assert.equal(resolveRef(files.items!), doc.components.schemas["FileEntry"]);
  assert.deepEqual(
    [...mine.get("GenerationWithFiles")!.keys()].sort(),
    [...Object.keys(doc.components.schemas["Generation"]!.properties!), "files"].sort(),
  );
  // The kinds the client offers are the server's.
  const kinds = (doc.components.schemas["MindlogAppend"]!.properties!["kind"]!.enum ?? []).filter((k) => k !== null);
  const program = ts.createProgram([join(PACKAGE_DIR, "src/types.ts")], { strict: true, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(join(PACKAGE_DIR, "src/types.ts"))!;
  let mindlogKinds: string[] = [];
  ts.forEachChild(source, (node) => {
    if (ts.isTypeAliasDeclaration(node) && node.name.text === "MindlogKind") {
      const t = checker.getTypeAtLocation(node);
      mindlogKinds = (t.isUnion() ? t.types : [t]).map((u) => checker.typeToString(u)).sort();
    }
  });
  assert.deepEqual(mindlogKinds, kinds.map((k) => JSON.stringify(k)).sort());
});

test("every operation of the document has its method", () => {
  const methods: Record<string, [object, string]> = {
    health: [Client.prototype, "health"],
    openapi: [Client.prototype, "openapi"],
    createSession: [Client.prototype, "session"],
    completeSession: [Session.prototype, "complete"],
    run: [Session.prototype, "run"],
    park: [Session.prototype, "park"],
    readFile: [Session.prototype, "readFile"],
    writeFile: [Session.prototype, "writeFile"],
    removeFile: [Session.prototype, "removeFile"],
    mindlogRead: [Client.prototype, "mindlog"],
    mindlogAppend: [Client.prototype, "mindlogAppend"],
    generations: [Client.prototype, "generations"],
    generation: [Client.prototype, "generation"],
    generationFile: [Client.prototype, "generationFile"],
    checkout: [Client.prototype, "checkout"],
    diff: [Client.prototype, "diff"],
    verify: [Client.prototype, "verify"],
  };
  const operations: string[] = [];
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) operations.push(op.operationId);
  }
  assert.deepEqual(operations.sort(), Object.keys(methods).sort());
  for (const [op, [proto, name]] of Object.entries(methods)) {
    assert.equal(typeof (proto as Record<string, unknown>)[name], "function", `${op}: ${name}`);
  }
});
