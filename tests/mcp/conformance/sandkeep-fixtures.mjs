// Four of the suite's server scenarios ask for fixtures of its reference
// server by name: a resource `test://static-text`, `test://static-binary`, a
// template `test://template/{id}/data` and a tool `test_tool_with_progress`.
// A sandbox serves its workspace instead, so, preloaded with
// `node --import ./sandkeep-fixtures.mjs`, this hook gives those scenarios
// the names of the sandbox's equivalents when the suite's code is loaded;
// each scenario's checks run unchanged. The workspace the test keeps first
// holds the files named here (tests/runtime/mcp_conformance.rs).
//
// A replacement that no longer matches (another suite version) stops the
// suite with an error instead of silently testing something else.
import { register } from "node:module";

export const REPLACEMENTS = [
  // A text file of the workspace.
  ["test://static-text", "file:///workspace/a.txt"],
  // A binary one (a lone 0xff byte: not UTF-8, so read as a blob).
  ["test://static-binary", "file:///workspace/d/b%20c.bin"],
  // The workspace template file:///workspace/{+path}, filled in with a
  // path that holds the id, whose file's text holds it too.
  ["test://template/123/data", "file:///workspace/t/123/data"],
  // A bash call whose output comes in three chunks, each a progress
  // notification (progress = bytes so far).
  [
    "name:`test_tool_with_progress`,arguments:{}",
    "name:`bash`,arguments:{command:`for i in 1 2 3; do echo $i; sleep 0.3; done`}",
  ],
];

register(
  "data:text/javascript," +
    encodeURIComponent(`
      const replacements = ${JSON.stringify(REPLACEMENTS)};
      export async function load(url, context, next) {
        const loaded = await next(url, context);
        if (!url.includes("/@modelcontextprotocol/conformance/dist/index.js")) return loaded;
        let source = Buffer.from(loaded.source).toString("utf8");
        for (const [from, to] of replacements) {
          if (!source.includes(from)) {
            throw new Error("sandkeep-fixtures: the suite no longer contains " + from);
          }
          source = source.split(from).join(to);
        }
        return { ...loaded, source, shortCircuit: true };
      }`),
);
