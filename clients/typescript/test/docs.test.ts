/**
 * What a user copies: every `ts` block of the package README and of the
 * repository README's TypeScript section is type-checked (`tsc --noEmit`)
 * and then run against a real server; and the package as `npm pack` makes
 * it installs into a fresh project, imports, talks to the server, and an
 * example there passes `tsc --noEmit`.
 */

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import ts from "typescript";

import { PACKAGE_DIR, REPO_DIR, TOKENS, startServer, type RunningServer } from "./server.js";

const run = promisify(execFile);
const TSC = join(PACKAGE_DIR, "node_modules/typescript/bin/tsc");

let server: RunningServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server.stop();
});

/** The ```ts blocks of `markdown` (within `section` when given: from that heading to the next of its level). */
function tsBlocks(markdown: string, section?: string): string[] {
  let text = markdown;
  if (section) {
    const lines = markdown.split("\n");
    const start = lines.findIndex((l) => /^#+ /.test(l) && l.replace(/^#+ /, "") === section);
    assert.ok(start >= 0, `no section "${section}"`);
    const level = /^#+/.exec(lines[start]!)![0].length;
    let end = lines.findIndex((l, i) => i > start && /^#+ /.test(l) && /^#+/.exec(l)![0].length <= level);
    if (end < 0) end = lines.length;
    text = lines.slice(start, end).join("\n");
  }
  return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** Where the README examples' address and token point in this test. */
function localize(code: string): string {
  return code.replaceAll("http://127.0.0.1:8080", server.base);
}

const COMPILER_OPTIONS = {
  target: "ES2022",
  lib: ["ES2022", "DOM", "esnext.disposable"],
  module: "NodeNext",
  moduleResolution: "NodeNext",
  strict: true,
  noEmit: true,
  skipLibCheck: true,
};

describe("README examples", () => {
  const blocks: Array<{ name: string; code: string }> = [];
  const pkg = tsBlocks(readFileSync(join(PACKAGE_DIR, "README.md"), "utf8"));
  pkg.forEach((code, i) => blocks.push({ name: `package README block ${i + 1}`, code }));
  const root = tsBlocks(readFileSync(join(REPO_DIR, "README.md"), "utf8"), "TypeScript quick start");
  root.forEach((code, i) => blocks.push({ name: `repository README block ${i + 1}`, code }));

  test("there are examples to check", () => {
    assert.ok(pkg.length >= 3, `package README: ${pkg.length} blocks`);
    assert.ok(root.length >= 1, `repository README: ${root.length} blocks`);
  });

  test("they type-check (tsc --noEmit)", async () => {
    // Inside the package, so `@sandkeep/client` resolves to it by name.
    const dir = join(PACKAGE_DIR, "build-test/readme");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    blocks.forEach((b, i) => writeFileSync(join(dir, `block${i}.ts`), b.code));
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { ...COMPILER_OPTIONS, types: ["node"] }, include: ["*.ts"] }),
    );
    const r = await run(process.execPath, [TSC, "-p", join(dir, "tsconfig.json")]).catch((e) => e);
    assert.equal(r.code ?? 0, 0, `${r.stdout}${r.stderr}`);
  });

  for (const [i, block] of blocks.entries()) {
    test(`${block.name} runs`, async () => {
      const js = ts.transpileModule(localize(block.code), {
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
      }).outputText;
      const file = join(PACKAGE_DIR, "build-test/readme", `run${i}.mjs`);
      mkdirSync(join(PACKAGE_DIR, "build-test/readme"), { recursive: true });
      writeFileSync(file, js);
      const { stdout } = await run(process.execPath, [file], { timeout: 60_000 });
      assert.ok(stdout.length > 0);
      // What the comments promise is what the blocks print.
      if (block.code.includes("'hi\\n' 'oops\\n' 3")) {
        assert.match(stdout, /hi\n oops\n 3\n/);
        assert.match(stdout, /SHOUT/);
        assert.match(stdout, /^true$/m);
        assert.match(stdout, /1\n2\n3\nexit 0/);
        assert.match(stdout, /Uint8Array\(4\) \[ 0, 1, 2, 255 \]/);
        assert.match(stdout, /TimeoutError/);
        assert.match(stdout, /403 forbidden/);
      }
      if (block.code.includes("client.verify")) {
        assert.match(stdout, /change: 'M', path: 'kept.txt', size: 4/);
        assert.match(stdout, /\{ damaged: \[\], ok: true \}/);
      }
      if (block.code.includes("wc -l < notes/todo.txt")) {
        assert.match(stdout, /^hi$/m);
        assert.match(stdout, /\{ kind: 'exit', exit_code: 0, truncated: false, timed_out: false \}/);
        assert.match(stdout, /^milk$/m);
        assert.match(stdout, /^1$/m);
        assert.match(stdout, /text: 'bought milk'/);
        assert.match(stdout, /403 forbidden/);
      }
      if (block.code.includes("from the tool")) {
        assert.match(stdout, /stdout: 'from the tool\\n'/);
      }
    });
  }
});

describe("npm pack", () => {
  let project: string;

  before(() => {
    project = mkdtempSync(join(tmpdir(), "sandkeep-ts-pack-"));
  });

  after(() => {
    rmSync(project, { recursive: true, force: true });
  });

  test("the tarball holds the build, types and README, and no dependencies", async () => {
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", project], { cwd: PACKAGE_DIR });
    const [info] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = info!.files.map((f) => f.path).sort();
    assert.ok(files.includes("dist/index.js") && files.includes("dist/index.d.ts"), files.join(" "));
    assert.ok(files.includes("README.md") && files.includes("package.json"));
    assert.deepEqual(
      files.filter((f) => !f.startsWith("dist/") && f !== "README.md" && f !== "package.json"),
      [],
    );
    const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as Record<string, unknown>;
    assert.equal(manifest["dependencies"], undefined);
  });

  test("it installs into a fresh project, imports, and talks to the server", async () => {
    const tarball = readdirSync(project).find((f) => f.endsWith(".tgz"))!;
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "fresh", version: "1.0.0", type: "module", private: true }));
    await run("npm", ["install", "--no-audit", "--no-fund", "--offline", `./${tarball}`], { cwd: project });
    writeFileSync(
      join(project, "main.mjs"),
      `import { Client, Session, SandkeepError, bashTool } from "@sandkeep/client";
const client = new Client(process.argv[2], { token: process.argv[3] });
const session = await client.session("alice");
const r = await session.run("echo installed");
await session.complete();
console.log(JSON.stringify({ out: r.stdout, kinds: [typeof Session, typeof SandkeepError, typeof bashTool] }));
`,
    );
    const { stdout } = await run(process.execPath, ["main.mjs", server.base, TOKENS.alice], { cwd: project });
    assert.deepEqual(JSON.parse(stdout), { out: "installed\n", kinds: ["function", "function", "function"] });
  });

  test("an example type-checks against the installed package (tsc --noEmit)", async () => {
    writeFileSync(join(project, "example.ts"), readFileSync(join(PACKAGE_DIR, "examples/quickstart.ts"), "utf8"));
    writeFileSync(join(project, "tsconfig.json"), JSON.stringify({ compilerOptions: { ...COMPILER_OPTIONS, types: [] }, files: ["example.ts"] }));
    const ok = await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: project }).catch((e) => e);
    assert.equal(ok.code ?? 0, 0, `${ok.stdout}${ok.stderr}`);
    // And a misuse is caught: the types are really checked.
    writeFileSync(
      join(project, "example.ts"),
      `import { Client } from "@sandkeep/client";\nconst r = await new Client("x").attach("i", "a").run(42);\nconsole.log(r.exitCode);\n`,
    );
    const bad = await run(process.execPath, [TSC, "-p", "tsconfig.json"], { cwd: project }).catch((e) => e);
    assert.notEqual(bad.code ?? 0, 0);
    assert.match(`${bad.stdout}`, /TS2345[\s\S]*TS2551|TS2551[\s\S]*TS2345/);
  });
});
