// Node 20's fs has no globSync (Node 22 added it), and the conformance suite
// 0.1.16 imports it by name, so on Node 20 it does not even load. Preloaded
// with `node --import ./node20-fs-shim.mjs`, this registers a resolve hook
// that gives the suite's own `import ... from "fs"` the module below:
// everything of node:fs, plus a globSync that only says it is missing. The
// suite calls globSync in its client-side `tier-check` command alone, never
// in the server scenarios run here. On Node 22+ the hook changes nothing.
import { register } from "node:module";
import * as fs from "node:fs";

if (typeof fs.globSync !== "function") {
  register(
    "data:text/javascript," +
      encodeURIComponent(`
        const shim = ${JSON.stringify(new URL("./fs-with-globsync.mjs", import.meta.url).href)};
        export async function resolve(specifier, context, next) {
          if ((specifier === "fs" || specifier === "node:fs")
              && context.parentURL && context.parentURL.includes("/@modelcontextprotocol/conformance/")) {
            return { url: shim, shortCircuit: true };
          }
          return next(specifier, context);
        }`),
  );
}
