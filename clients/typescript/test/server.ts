/**
 * A real `sandkeep serve` (local backend) for the tests: started on a free
 * loopback port with a token file and a data directory of its own, its
 * address read from the line it prints, stopped by its pid.
 *
 * The binary is `$SANDKEEP_BIN`, else the workspace's
 * `target/release/sandkeep`, else `target/debug/sandkeep`.
 */

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's directory (this file runs from build-test/test/). */
export const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The repository's root. */
export const REPO_DIR = resolve(PACKAGE_DIR, "../..");

/** Tokens the servers accept: alice's, bob's, one for every agent, and the README's. */
export const TOKENS = {
  alice: "tok-alice-0123456789",
  bob: "tok-bob-0123456789",
  admin: "tok-admin-0123456789",
  readme: "tok-alice-change-me",
};

export function sandkeepBinary(): string {
  const candidates = [
    process.env["SANDKEEP_BIN"],
    join(REPO_DIR, "target/release/sandkeep"),
    join(REPO_DIR, "target/debug/sandkeep"),
  ];
  for (const c of candidates) {
    if (c && existsSync(c)) return c;
  }
  throw new Error("no sandkeep binary: build it (cargo build --bin sandkeep) or set SANDKEEP_BIN");
}

export interface RunningServer {
  /** `http://127.0.0.1:PORT`. */
  base: string;
  pid: number;
  /** What the server printed on stderr so far. */
  log(): string;
  /** SIGTERM by pid, then wait for the exit (the server parks every session first). */
  stop(): Promise<void>;
}

/** Starts a server; `extra` are more `serve` flags (e.g. limits). */
export async function startServer(extra: string[] = []): Promise<RunningServer> {
  const dir = mkdtempSync(join(tmpdir(), "sandkeep-ts-"));
  const tokens = join(dir, "tokens.json");
  writeFileSync(
    tokens,
    JSON.stringify({
      [TOKENS.alice]: ["alice"],
      [TOKENS.bob]: ["bob"],
      [TOKENS.admin]: "*",
      [TOKENS.readme]: ["alice"],
    }),
  );
  const child: ChildProcess = spawn(
    sandkeepBinary(),
    ["--data", join(dir, "data"), "serve", "--listen", "127.0.0.1:0", "--tokens", tokens, "--backend", "local", ...extra],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  const base = await new Promise<string>((resolveBase, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within 30 s:\n${stderr}`)), 30_000);
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      stderr += chunk;
      const m = /serving on (http:\/\/[0-9.]+:\d+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolveBase(m[1]!);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before serving:\n${stderr}`));
    });
  });
  const exited = new Promise<void>((r) => child.on("exit", () => r()));
  return {
    base,
    pid: child.pid!,
    log: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        process.kill(child.pid!, "SIGTERM");
        const killer = setTimeout(() => process.kill(child.pid!, "SIGKILL"), 20_000);
        await exited;
        clearTimeout(killer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh random word (for markers that must not collide across tests). */
export function word(): string {
  return Math.random().toString(36).slice(2, 10);
}
