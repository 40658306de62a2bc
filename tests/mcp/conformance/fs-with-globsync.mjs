// node:fs as it is, plus the globSync Node 20 lacks (see node20-fs-shim.mjs).
export * from "node:fs";
import fs from "node:fs";
export default fs;
export function globSync(pattern) {
  throw new Error(`fs.globSync(${JSON.stringify(pattern)}) needs Node 22; this is Node ${process.versions.node}`);
}
