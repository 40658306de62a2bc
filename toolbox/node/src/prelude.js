// The Node.js surface of sandkeep's embedded `node`, written over QuickJS
// and the host bridge `__sk` (lib.rs: files, output, exit, hashes, the
// clock). Everything here is the sandbox's own code: files are the
// sandbox's, output goes to the command's streams, nothing reaches the
// host machine.
"use strict";
(function (sk, boot) {
  const G = globalThis;

  // ---- errors in Node's shape -------------------------------------------
  const ERRNO = {
    ENOENT: [-2, "no such file or directory"],
    EEXIST: [-17, "file already exists"],
    ENOTDIR: [-20, "not a directory"],
    EISDIR: [-21, "illegal operation on a directory"],
    ENOTEMPTY: [-39, "directory not empty"],
    EACCES: [-13, "permission denied"],
    ENOSPC: [-28, "no space left on device"],
    EFBIG: [-27, "file too large"],
    ELOOP: [-40, "too many symbolic links encountered"],
    EINVAL: [-22, "invalid argument"],
    EBADF: [-9, "bad file descriptor"],
  };
  function fsError(code, syscall, path, dest) {
    const [errno, text] = ERRNO[code] || [-5, "i/o error"];
    let msg = `${code}: ${text}, ${syscall}`;
    if (path !== undefined) msg += ` '${path}'`;
    if (dest !== undefined) msg += ` -> '${dest}'`;
    const e = new Error(msg);
    e.errno = errno;
    e.code = code;
    e.syscall = syscall;
    if (path !== undefined) e.path = path;
    if (dest !== undefined) e.dest = dest;
    return e;
  }
  function call(syscall, path, f, dest) {
    try {
      return f();
    } catch (c) {
      if (typeof c === "string") throw fsError(c, syscall, path, dest);
      throw c;
    }
  }
  function refusal(name) {
    const e = new Error(
      `Cannot use '${name}': the local sandbox has no ${
        name === "child_process" || name === "worker_threads" || name === "cluster"
          ? "host processes"
          : "network"
      } (sandkeep's embedded node)`
    );
    e.code = "ERR_SANDBOX_UNAVAILABLE";
    return e;
  }

  // ---- util.inspect -----------------------------------------------------
  const IDENT = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
  const ESC = { "\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f", "\v": "\\v", "\\": "\\\\" };
  function quoteString(s) {
    let q = "'";
    if (s.includes("'")) {
      if (!s.includes('"')) q = '"';
      else if (!s.includes("`") && !s.includes("${")) q = "`";
    }
    let out = "";
    for (const ch of s) {
      if (ch === q) out += "\\" + ch;
      else if (ESC[ch]) out += ESC[ch];
      else if (ch < " " || ch === "\x7f") out += "\\x" + ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0");
      else out += ch;
    }
    return q + out + q;
  }
  function keyText(k) {
    if (typeof k === "symbol") return `[${k.toString()}]`;
    return IDENT.test(k) ? k : quoteString(k);
  }
  function ctorName(v) {
    let p = Object.getPrototypeOf(v);
    while (p) {
      const d = Object.getOwnPropertyDescriptor(p, "constructor");
      if (d && typeof d.value === "function" && d.value.name) return d.value.name;
      p = Object.getPrototypeOf(p);
    }
    return null;
  }
  function fnText(f) {
    const src = Function.prototype.toString.call(f);
    if (/^class[\s{]/.test(src)) {
      const ext = Object.getPrototypeOf(f);
      return `[class ${f.name || "(anonymous)"}${ext && ext.name ? ` extends ${ext.name}` : ""}]`;
    }
    const kind = f.constructor && f.constructor.name === "AsyncFunction" ? "AsyncFunction"
      : f.constructor && f.constructor.name === "GeneratorFunction" ? "GeneratorFunction"
      : f.constructor && f.constructor.name === "AsyncGeneratorFunction" ? "AsyncGeneratorFunction"
      : "Function";
    return f.name ? `[${kind}: ${f.name}]` : `[${kind} (anonymous)]`;
  }
  function isBelowBreak(ctx, out, start, base) {
    let total = out.length + start;
    if (total + out.length > ctx.breakLength) return false;
    for (const o of out) {
      total += o.length;
      if (total > ctx.breakLength) return false;
    }
    return base === "" || !base.includes("\n");
  }
  // Arrays of more than six short entries are laid out in aligned columns,
  // about as wide as tall (Node's grouping of array output).
  function groupColumns(ctx, out, value) {
    let total = 0, maxLen = 0;
    let n = out.length;
    if (ctx.extraItems) n--;
    const sep = 2;
    const lens = [];
    for (let i = 0; i < n; i++) {
      const len = out[i].length;
      lens.push(len);
      total += len + sep;
      if (len > maxLen) maxLen = len;
    }
    const actualMax = maxLen + sep;
    if (actualMax * 3 + ctx.indent < ctx.breakLength && (total / actualMax > 5 || maxLen <= 6)) {
      const bias = Math.sqrt(actualMax - total / out.length);
      const biasedMax = Math.max(actualMax - 3 - bias, 1);
      const cols = Math.min(
        Math.round(Math.sqrt(2.5 * biasedMax * n) / biasedMax),
        Math.floor((ctx.breakLength - ctx.indent) / actualMax),
        3 * 4,
        15
      );
      if (cols <= 1) return out;
      const widths = [];
      for (let c = 0; c < cols; c++) {
        let w = 0;
        for (let j = c; j < out.length; j += cols) if (lens[j] > w) w = lens[j];
        widths.push(w + sep);
      }
      let numeric = value !== undefined;
      if (numeric) {
        for (let i = 0; i < out.length; i++) {
          if (typeof value[i] !== "number" && typeof value[i] !== "bigint") { numeric = false; break; }
        }
      }
      const rows = [];
      for (let i = 0; i < n; i += cols) {
        const last = Math.min(i + cols, n);
        let line = "";
        let j = i;
        for (; j < last - 1; j++) {
          const cell = out[j] + ", ";
          line += numeric ? cell.padStart(widths[j - i]) : cell.padEnd(widths[j - i]);
        }
        line += numeric ? out[j].padStart(widths[j - i] - sep) : out[j];
        rows.push(line);
      }
      if (ctx.extraItems) rows.push(out[n]);
      return rows;
    }
    return out;
  }
  function reduceToSingle(ctx, out, base, braces, isArray, level, value) {
    const entries = out.length;
    if (isArray && entries > 6) out = groupColumns(ctx, out, value);
    if (ctx.currentDepth - level < 3 && entries === out.length) {
      const start = out.length + ctx.indent + braces[0].length + base.length + 10;
      if (isBelowBreak(ctx, out, start, base)) {
        const joined = out.join(", ");
        if (!joined.includes("\n")) {
          return `${base ? base + " " : ""}${braces[0]} ${joined} ${braces[1]}`;
        }
      }
    }
    const ind = "\n" + " ".repeat(ctx.indent);
    return `${base ? base + " " : ""}${braces[0]}${ind}  ${out.join(`,${ind}  `)}${ind}${braces[1]}`;
  }
  function formatPrimitive(v, nested) {
    switch (typeof v) {
      case "string": return nested ? quoteString(v) : v;
      case "number": return Object.is(v, -0) ? "-0" : String(v);
      case "bigint": return `${v}n`;
      case "boolean": return String(v);
      case "undefined": return "undefined";
      case "symbol": return v.toString();
    }
    return v === null ? "null" : String(v);
  }
  function formatValue(ctx, v, level, nested) {
    if (v === null || (typeof v !== "object" && typeof v !== "function")) return formatPrimitive(v, nested);
    if (v instanceof BufferClass) {
      const bytes = [];
      for (let i = 0; i < Math.min(v.length, 50); i++) bytes.push(v[i].toString(16).padStart(2, "0"));
      return `<Buffer${bytes.length ? " " + bytes.join(" ") : ""}${v.length > 50 ? ` ... ${v.length - 50} more bytes` : ""}>`;
    }
    if (ctx.seen.includes(v)) {
      let idx = ctx.circular.get(v);
      if (idx === undefined) { idx = ctx.circular.size + 1; ctx.circular.set(v, idx); }
      return `[Circular *${idx}]`;
    }
    return formatRaw(ctx, v, level);
  }
  function ownEntries(ctx, v, skipIndices) {
    const out = [];
    for (const k of Object.keys(v)) {
      if (skipIndices && /^(0|[1-9][0-9]*)$/.test(k) && Number(k) < 2 ** 32 - 1) continue;
      out.push(formatProperty(ctx, v, k, ctx.level));
    }
    for (const s of Object.getOwnPropertySymbols(v)) {
      const d = Object.getOwnPropertyDescriptor(v, s);
      if (d && d.enumerable) out.push(formatProperty(ctx, v, s, ctx.level));
    }
    return out;
  }
  function formatProperty(ctx, obj, key, level) {
    const d = Object.getOwnPropertyDescriptor(obj, key) || { value: obj[key] };
    let str;
    if (d.get || d.set) {
      str = d.get && d.set ? "[Getter/Setter]" : d.get ? "[Getter]" : "[Setter]";
    } else {
      ctx.indent += 2;
      str = formatValue(ctx, d.value, level + 1, true);
      ctx.indent -= 2;
    }
    return `${keyText(key)}: ${str}`;
  }
  function formatRaw(ctx, v, level) {
    let braces, out, base = "", isArray = false;
    const name = ctorName(v);
    const tooDeep = level > ctx.depth;
    if (typeof v === "function") {
      base = fnText(v);
      const keys = Object.keys(v);
      if (keys.length === 0 || tooDeep) return base;
      braces = ["{", "}"];
    } else if (Array.isArray(v)) {
      const prefix = name !== "Array" && name ? `${name}(${v.length}) ` : "";
      braces = [`${prefix}[`, "]"];
      if (v.length === 0 && Object.keys(v).length === 0) return `${braces[0]}]`;
      if (tooDeep) return "[Array]";
      isArray = true;
    } else if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      if (tooDeep) return `[${name}]`;
      braces = [`${name}(${v.length}) [`, "]"];
      if (v.length === 0) return `${braces[0]}]`;
      isArray = true;
    } else if (v instanceof Map) {
      if (tooDeep) return "[Map]";
      braces = [`${name === "Map" ? "Map" : name}(${v.size}) {`, "}"];
      if (v.size === 0 && Object.keys(v).length === 0) return `${braces[0]}}`;
    } else if (v instanceof Set) {
      if (tooDeep) return "[Set]";
      braces = [`${name === "Set" ? "Set" : name}(${v.size}) {`, "}"];
      if (v.size === 0 && Object.keys(v).length === 0) return `${braces[0]}}`;
    } else if (v instanceof Date) {
      const t = isNaN(v.getTime()) ? "Invalid Date" : v.toISOString();
      if (Object.keys(v).length === 0) return t;
      base = t;
      braces = ["{", "}"];
    } else if (v instanceof RegExp) {
      const t = RegExp.prototype.toString.call(v);
      if (Object.keys(v).length === 0) return t;
      base = t;
      braces = ["{", "}"];
    } else if (v instanceof Error) {
      const stack = errorText(v);
      const keys = Object.keys(v).filter((k) => k !== "stack" && k !== "message");
      if (keys.length === 0 || tooDeep) return level > 0 ? indentLines(stack, ctx.indent) : stack;
      base = level > 0 ? indentLines(stack, ctx.indent) : stack;
      braces = ["{", "}"];
    } else if (v instanceof Promise) {
      return "Promise { <pending> }";
    } else if (typeof v.then === "function" && name === "Promise") {
      return "Promise { <pending> }";
    } else {
      if (v instanceof Boolean || v instanceof Number || v instanceof String) {
        const t = `[${name}: ${formatPrimitive(v.valueOf(), true)}]`;
        if (Object.keys(v).length === 0 || v instanceof String) return t;
      }
      const proto = Object.getPrototypeOf(v);
      let prefix = "";
      if (proto === null) prefix = "[Object: null prototype] ";
      else if (name && name !== "Object") prefix = `${name} `;
      braces = [`${prefix}{`, "}"];
      if (Object.keys(v).length === 0 && Object.getOwnPropertySymbols(v).length === 0) {
        return `${prefix}{}`;
      }
      if (tooDeep) return proto === null ? "[Object: null prototype]" : `[${name || "Object"}]`;
    }
    if (tooDeep) return `[${name || "Object"}]`;
    ctx.seen.push(v);
    ctx.currentDepth = level;
    const saveLevel = ctx.level;
    ctx.level = level;
    const saveExtra = ctx.extraItems;
    ctx.extraItems = false;
    out = [];
    if (isArray) {
      const max = Math.min(v.length, 100);
      let holes = 0;
      const flush = () => {
        if (holes) out.push(`<${holes} empty item${holes > 1 ? "s" : ""}>`);
        holes = 0;
      };
      for (let i = 0; i < max; i++) {
        if (!Object.prototype.hasOwnProperty.call(v, i)) { holes++; continue; }
        flush();
        ctx.indent += 2;
        out.push(formatValue(ctx, v[i], level + 1, true));
        ctx.indent -= 2;
      }
      flush();
      if (v.length > 100) {
        out.push(`... ${v.length - 100} more item${v.length - 100 > 1 ? "s" : ""}`);
        ctx.extraItems = true;
      }
      if (!ArrayBuffer.isView(v)) out.push(...ownEntries(ctx, v, true));
    } else if (v instanceof Map) {
      for (const [k, val] of v) {
        ctx.indent += 2;
        out.push(`${formatValue(ctx, k, level + 1, true)} => ${formatValue(ctx, val, level + 1, true)}`);
        ctx.indent -= 2;
      }
      out.push(...ownEntries(ctx, v, false));
    } else if (v instanceof Set) {
      for (const val of v) {
        ctx.indent += 2;
        out.push(formatValue(ctx, val, level + 1, true));
        ctx.indent -= 2;
      }
      out.push(...ownEntries(ctx, v, false));
    } else {
      out.push(...ownEntries(ctx, v, false).filter((e) => !(v instanceof Error && /^(stack|message): /.test(e))));
    }
    ctx.seen.pop();
    ctx.level = saveLevel;
    let res = reduceToSingle(ctx, out, base, braces, isArray, level, isArray ? v : undefined);
    ctx.extraItems = saveExtra;
    const ref = ctx.circular.get(v);
    if (ref !== undefined) res = `<ref *${ref}> ${res}`;
    return res;
  }
  function indentLines(s, n) {
    return s.split("\n").join("\n" + " ".repeat(n));
  }
  // QuickJS's words for the errors agents meet most, in V8's (what Node
  // prints and scripts compare against).
  const V8_WORDS = [
    [/^cannot read property '(.*)' of (null|undefined)$/, "Cannot read properties of $2 (reading '$1')"],
    [/^cannot set property '(.*)' of (null|undefined)$/, "Cannot set properties of $2 (setting '$1')"],
  ];
  function v8Message(m) {
    for (const [re, to] of V8_WORDS) if (re.test(m)) return m.replace(re, to);
    return m;
  }
  function errorText(e) {
    let stack = typeof e.stack === "string" ? e.stack : "";
    const msg = typeof e.message === "string" ? v8Message(e.message) : e.message;
    const head = msg ? `${e.name || "Error"}: ${msg}` : `${e.name || "Error"}`;
    const frames = stack.split("\n").filter((l) => /^\s+at /.test(l)).map((l) => "    " + l.trim());
    return [head, ...frames].join("\n");
  }
  function inspect(v, opts) {
    const o = typeof opts === "object" && opts !== null ? opts : {};
    const ctx = {
      depth: o.depth === null ? Infinity : o.depth === undefined ? 2 : o.depth,
      breakLength: o.breakLength || 80,
      indent: 0,
      seen: [],
      circular: new Map(),
      currentDepth: 0,
      level: 0,
      extraItems: false,
    };
    return formatValue(ctx, v, 0, true);
  }
  function format(...args) {
    if (args.length === 0) return "";
    const first = args[0];
    let i = 1;
    let out = "";
    if (typeof first === "string") {
      if (args.length === 1) return first;
      let last = 0;
      for (let p = 0; p < first.length - 1; p++) {
        if (first[p] !== "%") continue;
        const c = first[p + 1];
        let rep;
        if (c === "%") { out += first.slice(last, p) + "%"; last = p + 2; p++; continue; }
        if (i >= args.length) continue;
        const a = args[i];
        switch (c) {
          case "s": rep = typeof a === "string" ? a : typeof a === "bigint" ? `${a}n` : typeof a === "object" && a !== null ? inspect(a, { depth: 1 }) : formatPrimitive(a, false); break;
          case "d": rep = typeof a === "bigint" ? `${a}n` : typeof a === "object" && a !== null ? "NaN" : formatPrimitive(Number(a), false); break;
          case "i": rep = typeof a === "bigint" ? `${a}n` : formatPrimitive(parseInt(a), false); break;
          case "f": rep = formatPrimitive(parseFloat(a), false); break;
          case "j": try { rep = JSON.stringify(a); } catch (e) { rep = "[Circular]"; } break;
          case "o": rep = inspect(a, { depth: 4 }); break;
          case "O": rep = inspect(a); break;
          case "c": rep = ""; break;
          default: continue;
        }
        out += first.slice(last, p) + rep;
        last = p + 2;
        p++;
        i++;
      }
      out += first.slice(last);
    } else {
      out = typeof first === "string" ? first : inspect(first);
    }
    for (; i < args.length; i++) {
      const a = args[i];
      out += " " + (typeof a === "string" ? a : inspect(a));
    }
    return out;
  }

  // ---- output -----------------------------------------------------------
  function writer(fd) {
    const w = new EventEmitterClass();
    w.fd = fd;
    w.writable = true;
    w.write = (chunk, enc, cb) => {
      if (typeof enc === "function") cb = enc;
      if (chunk instanceof Uint8Array) sk.writeBytes(fd, latin1(chunk));
      else sk.write(fd, String(chunk));
      if (typeof cb === "function") queueMicrotask(cb);
      return true;
    };
    w.end = (chunk, enc, cb) => {
      if (chunk !== undefined && chunk !== null && typeof chunk !== "function") w.write(chunk, enc);
      const f = [chunk, enc, cb].find((x) => typeof x === "function");
      if (f) queueMicrotask(f);
    };
    w.cork = w.uncork = () => {};
    return w;
  }
  // console.table: an (index) column, one column per key of the rows
  // (in first-seen order), "Values" for primitive rows; cells centered.
  function table(data, only) {
    if (data === null || typeof data !== "object") return format(data) + "\n";
    const cell = (v) => (v === undefined ? "" : formatValue({ depth: 0, breakLength: Infinity, indent: 0, seen: [], circular: new Map(), currentDepth: 0, level: 0 }, v, 1, true));
    const keys = [];
    let values = false;
    const rows = [];
    const entries = data instanceof Map ? [...data.entries()] : Object.entries(data);
    for (const [idx, row] of entries) {
      const r = { idx: String(idx), cols: {} };
      if (row !== null && typeof row === "object") {
        for (const k of Object.keys(row)) {
          if (only && !only.includes(k)) continue;
          if (!keys.includes(k)) keys.push(k);
          r.cols[k] = cell(row[k]);
        }
      } else {
        values = true;
        r.value = cell(row);
      }
      rows.push(r);
    }
    const head = ["(index)", ...keys, ...(values ? ["Values"] : [])];
    const body = rows.map((r) => [r.idx, ...keys.map((k) => (k in r.cols ? r.cols[k] : "")), ...(values ? [r.value === undefined ? "" : r.value] : [])]);
    const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)) + 2);
    const center = (t, w) => " " + t.padEnd(w - 1);
    const line = (l, m, r) => l + widths.map((w) => "─".repeat(w)).join(m) + r + "\n";
    let out = line("┌", "┬", "┐");
    out += "│" + head.map((h, i) => center(h, widths[i])).join("│") + "│\n";
    out += line("├", "┼", "┤");
    for (const b of body) out += "│" + b.map((c, i) => center(c, widths[i])).join("│") + "│\n";
    out += line("└", "┴", "┘");
    return out;
  }
  const counts = new Map();
  const timersByLabel = new Map();
  let groupIndent = "";
  function logTo(fd) {
    return (...a) => {
      let s = format(...a);
      if (groupIndent) s = s.split("\n").map((l) => groupIndent + l).join("\n");
      sk.write(fd, s + "\n");
    };
  }
  const console = {
    log: logTo(1), info: logTo(1), debug: logTo(1),
    error: logTo(2), warn: logTo(2), trace: (...a) => logTo(2)("Trace: " + format(...a)),
    dir: (v, o) => sk.write(1, inspect(v, o) + "\n"),
    table: (data, columns) => sk.write(1, table(data, columns)),
    assert: (c, ...a) => { if (!c) logTo(2)("Assertion failed" + (a.length ? ": " + format(...a) : "")); },
    count: (l = "default") => { const n = (counts.get(l) || 0) + 1; counts.set(l, n); logTo(1)(`${l}: ${n}`); },
    countReset: (l = "default") => counts.delete(l),
    group: (...a) => { if (a.length) logTo(1)(...a); groupIndent += "  "; },
    groupEnd: () => { groupIndent = groupIndent.slice(2); },
    time: (l = "default") => timersByLabel.set(l, sk.monotonic()),
    timeEnd: (l = "default") => { const t = timersByLabel.get(l); if (t !== undefined) logTo(1)(`${l}: ${(sk.monotonic() - t).toFixed(3)}ms`); timersByLabel.delete(l); },
    timeLog: (l = "default", ...a) => { const t = timersByLabel.get(l); if (t !== undefined) logTo(1)(`${l}: ${(sk.monotonic() - t).toFixed(3)}ms`, ...a); },
  };
  console.groupCollapsed = console.group;

  // ---- events -----------------------------------------------------------
  class EventEmitterClass {
    constructor() { this._events = new Map(); this._max = 10; }
    on(n, f) { if (!this._events) this._events = new Map(); if (n !== "newListener" && this._events.has("newListener")) this.emit("newListener", n, f); const l = this._events.get(n) || []; l.push(f); this._events.set(n, l); return this; }
    addListener(n, f) { return this.on(n, f); }
    prependListener(n, f) { const l = (this._events || (this._events = new Map())).get(n) || []; l.unshift(f); this._events.set(n, l); return this; }
    once(n, f) { const w = (...a) => { this.off(n, w); f.apply(this, a); }; w.listener = f; return this.on(n, w); }
    off(n, f) { const l = this._events && this._events.get(n); if (l) { const i = l.findIndex((x) => x === f || x.listener === f); if (i >= 0) l.splice(i, 1); if (!l.length) this._events.delete(n); } return this; }
    removeListener(n, f) { return this.off(n, f); }
    removeAllListeners(n) { if (!this._events) return this; if (n === undefined) this._events.clear(); else this._events.delete(n); return this; }
    emit(n, ...a) {
      const l = this._events && this._events.get(n);
      if (!l || !l.length) { if (n === "error") throw a[0] instanceof Error ? a[0] : new Error("Unhandled error. (" + inspect(a[0]) + ")"); return false; }
      for (const f of [...l]) f.apply(this, a);
      return true;
    }
    listenerCount(n) { const l = this._events && this._events.get(n); return l ? l.length : 0; }
    listeners(n) { return [...((this._events && this._events.get(n)) || [])].map((f) => f.listener || f); }
    rawListeners(n) { return [...((this._events && this._events.get(n)) || [])]; }
    eventNames() { return this._events ? [...this._events.keys()] : []; }
    setMaxListeners(n) { this._max = n; return this; }
    getMaxListeners() { return this._max; }
  }
  Object.defineProperty(EventEmitterClass, "name", { value: "EventEmitter" });
  const eventsModule = EventEmitterClass;
  eventsModule.EventEmitter = EventEmitterClass;
  eventsModule.default = EventEmitterClass;
  eventsModule.once = (em, n) => new Promise((res) => em.once(n, (...a) => res(a)));

  // ---- bytes: Buffer, TextEncoder/Decoder, base64 -------------------------
  function utf8Encode(s) {
    const out = [];
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d < 0xe000) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; }
        else c = 0xfffd;
      } else if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return out;
  }
  function latin1(bytes) {
    let s = "";
    for (let i = 0; i < bytes.length; i += 8192) s += String.fromCharCode.apply(null, bytes.subarray ? bytes.subarray(i, i + 8192) : bytes.slice(i, i + 8192));
    return s;
  }
  function fromLatin1(s) {
    const b = new BufferClass(s.length);
    for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i) & 255;
    return b;
  }
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  function b64encode(bytes, url) {
    let s = "";
    for (let i = 0; i < bytes.length; i += 3) {
      const n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
      s += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
      s += i + 1 < bytes.length ? B64[(n >> 6) & 63] : "=";
      s += i + 2 < bytes.length ? B64[n & 63] : "=";
    }
    if (url) s = s.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    return s;
  }
  function b64decode(s) {
    s = String(s).replace(/-/g, "+").replace(/_/g, "/").replace(/[^A-Za-z0-9+/]/g, "");
    const out = [];
    let buf = 0, bits = 0;
    for (const ch of s) {
      buf = (buf << 6) | B64.indexOf(ch);
      bits += 6;
      if (bits >= 8) { bits -= 8; out.push((buf >> bits) & 255); }
    }
    return out;
  }
  class BufferClass extends Uint8Array {
    static from(v, enc) {
      if (typeof v === "string") {
        enc = (enc || "utf8").toLowerCase();
        if (enc === "base64" || enc === "base64url") return BufferClass._of(b64decode(v));
        if (enc === "hex") { const a = []; for (let i = 0; i + 1 < v.length; i += 2) { const n = parseInt(v.substr(i, 2), 16); if (isNaN(n)) break; a.push(n); } return BufferClass._of(a); }
        if (enc === "latin1" || enc === "binary" || enc === "ascii") return fromLatin1(v);
        return BufferClass._of(utf8Encode(v));
      }
      if (v instanceof ArrayBuffer) return new BufferClass(v);
      return BufferClass._of(Array.from(v, (x) => x & 255));
    }
    static _of(arr) { const b = new BufferClass(arr.length); b.set(arr); return b; }
    static alloc(n, fill) { const b = new BufferClass(n); if (fill !== undefined) b.fill(typeof fill === "string" ? fill.charCodeAt(0) : fill); return b; }
    static allocUnsafe(n) { return new BufferClass(n); }
    static isBuffer(b) { return b instanceof BufferClass; }
    static byteLength(s, enc) { return typeof s === "string" ? BufferClass.from(s, enc).length : s.byteLength; }
    static concat(list, total) {
      const len = total !== undefined ? total : list.reduce((a, b) => a + b.length, 0);
      const out = new BufferClass(len);
      let off = 0;
      for (const b of list) { if (off >= len) break; out.set(b.subarray(0, len - off), off); off += b.length; }
      return out;
    }
    toString(enc, start, end) {
      const b = this.subarray(start || 0, end === undefined ? this.length : end);
      enc = (enc || "utf8").toLowerCase();
      if (enc === "base64") return b64encode(b, false);
      if (enc === "base64url") return b64encode(b, true);
      if (enc === "hex") return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
      if (enc === "latin1" || enc === "binary") return latin1(b);
      if (enc === "ascii") return latin1(b.map((x) => x & 127));
      return sk.utf8Decode(latin1(b));
    }
    toJSON() { return { type: "Buffer", data: Array.from(this) }; }
    equals(o) { if (o.length !== this.length) return false; for (let i = 0; i < o.length; i++) if (o[i] !== this[i]) return false; return true; }
    slice(s, e) { return this.subarray(s, e); }
    subarray(s, e) { const u = Uint8Array.prototype.subarray.call(this, s, e); return new BufferClass(u.buffer, u.byteOffset, u.length); }
    write(s, off) { const b = BufferClass.from(s); this.set(b.subarray(0, this.length - (off || 0)), off || 0); return Math.min(b.length, this.length - (off || 0)); }
    readUInt8(o) { return this[o]; }
    copy(t, ts = 0, ss = 0, se = this.length) { const part = this.subarray(ss, se); t.set(part, ts); return part.length; }
    indexOf(v, from) { if (typeof v === "string") v = BufferClass.from(v); if (typeof v === "number") return Uint8Array.prototype.indexOf.call(this, v, from); outer: for (let i = from || 0; i <= this.length - v.length; i++) { for (let j = 0; j < v.length; j++) if (this[i + j] !== v[j]) continue outer; return i; } return -1; }
    includes(v, from) { return this.indexOf(v, from) !== -1; }
  }
  Object.defineProperty(BufferClass, "name", { value: "Buffer" });
  class TextEncoderClass {
    get encoding() { return "utf-8"; }
    encode(s = "") { const a = utf8Encode(String(s)); const u = new Uint8Array(a.length); u.set(a); return u; }
  }
  class TextDecoderClass {
    constructor(enc = "utf-8") { this.encoding = enc.toLowerCase(); }
    decode(b) {
      if (b === undefined) return "";
      const u = b instanceof ArrayBuffer ? new Uint8Array(b) : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
      return this.encoding === "latin1" ? latin1(u) : sk.utf8Decode(latin1(u));
    }
  }
  Object.defineProperty(TextEncoderClass, "name", { value: "TextEncoder" });
  Object.defineProperty(TextDecoderClass, "name", { value: "TextDecoder" });

  // ---- timers and the macrotask queue --------------------------------------
  // lib.rs runs the loop: microtasks (QuickJS jobs), then the earliest due
  // macrotask (`timers.next()` says how long to wait, `timers.fire()` runs it).
  let timerSeq = 0;
  const timerList = [];
  class Timeout {
    constructor(id) { this._id = id; }
    ref() { return this; }
    unref() { const t = timerList.find((x) => x.id === this._id); if (t) t.unref = true; return this; }
    hasRef() { return true; }
    refresh() { return this; }
    [Symbol.toPrimitive]() { return this._id; }
  }
  function addTimer(fn, ms, args, repeat, immediate) {
    if (typeof fn !== "function") throw new TypeError('The "callback" argument must be of type function');
    ms = Number(ms);
    if (!(ms >= 1) || ms > 2147483647) ms = 1;
    if (immediate) ms = 0;
    const id = ++timerSeq;
    timerList.push({ id, fn, args, due: sk.monotonic() + ms, ms, repeat, seq: id, immediate });
    return immediate ? { _id: id, ref() { return this; }, unref() { return this; }, hasRef() { return true; } } : new Timeout(id);
  }
  function clearTimer(t) {
    const id = t && typeof t === "object" ? t._id : t;
    const i = timerList.findIndex((x) => x.id === id);
    if (i >= 0) timerList.splice(i, 1);
  }
  function earliest() {
    let best = -1;
    for (let i = 0; i < timerList.length; i++) {
      const t = timerList[i];
      if (best < 0) { best = i; continue; }
      const b = timerList[best];
      if (t.immediate !== b.immediate ? t.immediate : t.due < b.due || (t.due === b.due && t.seq < b.seq)) best = i;
    }
    return best;
  }
  const timers = {
    next() {
      if (timerList.every((t) => t.unref)) return -1;
      const i = earliest();
      if (i < 0) return -1;
      const t = timerList[i];
      return t.immediate ? 0 : Math.max(0, t.due - sk.monotonic());
    },
    fire() {
      const i = earliest();
      if (i < 0) return;
      const t = timerList[i];
      if (t.repeat) { t.due = sk.monotonic() + t.ms; t.seq = ++timerSeq; }
      else timerList.splice(i, 1);
      t.fn.apply(undefined, t.args);
    },
  };

  // ---- process ----------------------------------------------------------
  // process.nextTick callbacks: lib.rs drains them before each promise job.
  const ticks = [];
  function runTicks() {
    let ran = false;
    while (ticks.length) { ran = true; ticks.shift()(); }
    return ran;
  }
  const process = new EventEmitterClass();
  let exitCode;
  let exiting = false;
  Object.assign(process, {
    argv: boot.argv,
    argv0: "node",
    execArgv: [],
    execPath: boot.execPath,
    env: boot.env,
    pid: 42,
    ppid: 1,
    platform: "linux",
    arch: "x64",
    version: boot.version,
    versions: { node: boot.version.slice(1), quickjs: boot.engine, v8: "0.0.0-sandkeep", uv: "0.0.0-sandkeep" },
    release: { name: "node" },
    title: "node",
    cwd: () => boot.cwd,
    chdir: () => { throw new Error("process.chdir() is not supported in the sandbox's embedded node"); },
    exit(code) {
      if (code !== undefined) process.exitCode = code;
      const c = process.exitCode === undefined ? 0 : Number(process.exitCode) | 0;
      if (!exiting) { exiting = true; try { process.emit("exit", c); } catch (e) { /* exit anyway */ } }
      sk.exit(c);
      for (;;) {} // The host interrupts here: nothing after exit() runs.
    },
    abort() { sk.exit(134); for (;;) {} },
    nextTick(fn, ...args) { ticks.push(() => fn(...args)); },
    hrtime: Object.assign((prev) => {
      const ns = BigInt(Math.round(sk.monotonic() * 1e6));
      let s = Number(ns / 1000000000n), n = Number(ns % 1000000000n);
      if (prev) { s -= prev[0]; n -= prev[1]; if (n < 0) { s--; n += 1e9; } }
      return [s, n];
    }, { bigint: () => BigInt(Math.round(sk.monotonic() * 1e6)) }),
    uptime: () => sk.monotonic() / 1000,
    memoryUsage: Object.assign(() => ({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }), { rss: () => 0 }),
    cpuUsage: () => ({ user: 0, system: 0 }),
    umask: () => 0o22,
    getuid: () => 1000, getgid: () => 1000, geteuid: () => 1000,
    kill: () => { throw refusal("child_process"); },
    emitWarning: (w) => sk.write(2, `(node:42) ${typeof w === "string" ? "Warning: " + w : w.name + ": " + w.message}\n`),
    binding: () => { throw new Error("No such module"); },
    config: { variables: {} },
    features: {},
    stdout: writer(1),
    stderr: writer(2),
  });
  Object.defineProperty(process, "exitCode", {
    get: () => exitCode,
    set: (v) => { exitCode = v; sk.setExitCode(v === undefined ? 0 : Number(v) | 0); },
    enumerable: true,
  });
  // stdin: the whole input, read by the host up front when the program
  // mentions stdin, delivered as one chunk then 'end'.
  const stdin = new EventEmitterClass();
  stdin.fd = 0;
  let stdinEncoding = null;
  let stdinScheduled = false;
  function stdinText() { return sk.stdin(); }
  function scheduleStdin() {
    if (stdinScheduled) return;
    stdinScheduled = true;
    addTimer(() => {
      const data = stdinText();
      if (data.length) {
        const chunk = stdinEncoding ? sk.utf8Decode(data) : fromLatin1(data);
        stdin.emit("data", chunk);
      }
      stdin.emit("end");
      stdin.emit("close");
    }, 0, [], false, true);
  }
  const origOn = stdin.on.bind(stdin);
  stdin.on = stdin.addListener = (n, f) => { origOn(n, f); if (n === "data" || n === "end" || n === "readable") scheduleStdin(); return stdin; };
  stdin.setEncoding = (e) => { stdinEncoding = e || "utf8"; return stdin; };
  stdin.resume = () => { scheduleStdin(); return stdin; };
  stdin.pause = () => stdin;
  stdin.read = () => null;
  stdin.setRawMode = () => stdin;
  stdin.unref = stdin.ref = () => stdin;
  stdin[Symbol.asyncIterator] = async function* () { const d = stdinText(); if (d.length) yield fromLatin1(d); };
  process.stdin = stdin;

  // ---- path (POSIX) -----------------------------------------------------
  function normalizeParts(parts, absolute) {
    const out = [];
    for (const p of parts) {
      if (!p || p === ".") continue;
      if (p === "..") { if (out.length && out[out.length - 1] !== "..") out.pop(); else if (!absolute) out.push(".."); }
      else out.push(p);
    }
    return out;
  }
  const path = {
    sep: "/",
    delimiter: ":",
    normalize(p) {
      if (p === "") return ".";
      const abs = p.startsWith("/");
      const trail = p.endsWith("/");
      let r = normalizeParts(p.split("/"), abs).join("/");
      if (!r && !abs) r = ".";
      if (r && trail) r += "/";
      return (abs ? "/" : "") + r;
    },
    join(...a) { const j = a.filter((x) => { if (typeof x !== "string") throw new TypeError('The "path" argument must be of type string'); return x !== ""; }).join("/"); return j ? path.normalize(j) : "."; },
    resolve(...a) {
      let r = "";
      for (let i = a.length - 1; i >= 0 && !r.startsWith("/"); i--) if (a[i]) r = a[i] + (r ? "/" + r : "");
      if (!r.startsWith("/")) r = boot.cwd + (r ? "/" + r : "");
      const n = "/" + normalizeParts(r.split("/"), true).join("/");
      return n;
    },
    isAbsolute: (p) => p.startsWith("/"),
    dirname(p) {
      if (!p) return ".";
      const s = p.replace(/\/+$/, "");
      if (!s) return "/";
      const i = s.lastIndexOf("/");
      if (i < 0) return ".";
      if (i === 0) return "/";
      return s.slice(0, i).replace(/\/+$/, "") || "/";
    },
    basename(p, ext) {
      const s = p.replace(/\/+$/, "");
      let b = s.slice(s.lastIndexOf("/") + 1);
      if (ext && b.endsWith(ext) && b !== ext) b = b.slice(0, -ext.length);
      return b;
    },
    extname(p) {
      const b = path.basename(p);
      const i = b.lastIndexOf(".");
      return i <= 0 ? "" : b.slice(i);
    },
    relative(from, to) {
      const f = path.resolve(from).split("/").filter(Boolean);
      const t = path.resolve(to).split("/").filter(Boolean);
      let i = 0;
      while (i < f.length && i < t.length && f[i] === t[i]) i++;
      return [...Array(f.length - i).fill(".."), ...t.slice(i)].join("/");
    },
    parse(p) {
      const root = p.startsWith("/") ? "/" : "";
      const base = path.basename(p);
      const ext = path.extname(p);
      let dir = path.dirname(p);
      if (dir === "." && !p.includes("/")) dir = "";
      return { root, dir, base, ext, name: ext ? base.slice(0, -ext.length) : base };
    },
    format(o) { const dir = o.dir || o.root || ""; const base = o.base || (o.name || "") + (o.ext || ""); return dir ? (dir === o.root ? dir + base : dir + "/" + base) : base; },
    toNamespacedPath: (p) => p,
  };
  path.posix = path;
  path.win32 = path;

  // ---- fs ---------------------------------------------------------------
  function pathArg(p) {
    if (p instanceof URLClass) p = p.pathname;
    if (p instanceof Uint8Array) p = sk.utf8Decode(latin1(p));
    if (typeof p !== "string") throw new TypeError(`The "path" argument must be of type string. Received ${inspect(p)}`);
    return p;
  }
  function encodingOf(o) { return typeof o === "string" ? o : o && o.encoding ? o.encoding : null; }
  function decode(bytesLatin1, enc) {
    if (!enc || enc === "buffer") return fromLatin1(bytesLatin1);
    enc = enc.toLowerCase();
    if (enc === "utf8" || enc === "utf-8") return sk.utf8Decode(bytesLatin1);
    return fromLatin1(bytesLatin1).toString(enc);
  }
  class Stats {
    constructor(a) {
      this.dev = 1; this.mode = a[2]; this.nlink = a[5]; this.uid = 1000; this.gid = 1000; this.rdev = 0;
      this.blksize = 4096; this.ino = a[4]; this.size = a[1]; this.blocks = Math.ceil(a[1] / 512);
      this.atimeMs = a[3]; this.mtimeMs = a[3]; this.ctimeMs = a[3]; this.birthtimeMs = a[3];
      this.atime = new Date(a[3]); this.mtime = new Date(a[3]); this.ctime = new Date(a[3]); this.birthtime = new Date(a[3]);
      Object.defineProperty(this, "_kind", { value: a[0] });
    }
    isFile() { return this._kind === "file"; }
    isDirectory() { return this._kind === "dir"; }
    isSymbolicLink() { return this._kind === "symlink"; }
    isFIFO() { return this._kind === "fifo"; }
    isSocket() { return false; }
    isBlockDevice() { return false; }
    isCharacterDevice() { return this._kind === "device"; }
  }
  class Dirent {
    constructor(name, kind, dir) { this.name = name; this.path = dir; Object.defineProperty(this, "_kind", { value: kind }); }
    isFile() { return this._kind === "file"; }
    isDirectory() { return this._kind === "dir"; }
    isSymbolicLink() { return this._kind === "symlink"; }
    isFIFO() { return this._kind === "fifo"; }
    isSocket() { return false; }
    isBlockDevice() { return false; }
    isCharacterDevice() { return this._kind === "device"; }
  }
  function readSync(p, o) {
    const enc = encodingOf(o);
    if (p === 0 || p === "/dev/stdin") return decode(stdinText(), enc);
    p = pathArg(p);
    const data = call("open", p, () => sk.readBytes(p));
    return decode(data, enc);
  }
  function toBytes(data, enc) {
    if (typeof data === "string") {
      if (!enc || enc === "utf8" || enc === "utf-8") return [data, false];
      return [latin1(BufferClass.from(data, enc)), true];
    }
    if (data instanceof Uint8Array) return [latin1(data), true];
    if (ArrayBuffer.isView(data)) return [latin1(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)), true];
    return [String(data), false];
  }
  function writeSync(p, data, o, append) {
    const enc = encodingOf(o);
    if (o && typeof o === "object" && o.flag && o.flag.startsWith("a")) append = true;
    if (p === 1 || p === 2) { const [s, bin] = toBytes(data, enc); if (bin) sk.writeBytes(p, s); else sk.write(p, s); return; }
    p = pathArg(p);
    const [s, bin] = toBytes(data, enc);
    if (o && typeof o === "object" && o.flag === "wx" && sk.exists(p)) throw fsError("EEXIST", "open", p);
    call("open", p, () => (bin ? sk.writeBytes2(p, s, !!append) : sk.writeText(p, s, !!append)));
  }
  function statSync(p, o, link) {
    p = pathArg(p);
    try {
      return new Stats(sk.stat(p, !!link));
    } catch (c) {
      if (o && o.throwIfNoEntry === false && c === "ENOENT") return undefined;
      if (typeof c === "string") throw fsError(c, link ? "lstat" : "stat", p);
      throw c;
    }
  }
  function readdirSync(p, o) {
    p = pathArg(p);
    const names = call("scandir", p, () => sk.readdir(p));
    const withTypes = o && typeof o === "object" && o.withFileTypes;
    const recursive = o && typeof o === "object" && o.recursive;
    let out = [];
    for (const [name, kind] of names) {
      out.push(withTypes ? new Dirent(name, kind, p) : name);
      if (recursive && kind === "dir") {
        const sub = readdirSync(p + "/" + name, o);
        out = out.concat(withTypes ? sub : sub.map((s) => name + "/" + s));
      }
    }
    return out;
  }
  function mkdirSync(p, o) {
    p = pathArg(p);
    const rec = o && typeof o === "object" && o.recursive;
    if (rec) {
      const existed = sk.exists(p);
      call("mkdir", p, () => sk.mkdir(p, true));
      return existed ? undefined : path.resolve(p);
    }
    call("mkdir", p, () => sk.mkdir(p, false));
  }
  function rmSync(p, o) {
    p = pathArg(p);
    const force = o && o.force, rec = o && o.recursive;
    if (!sk.exists(p) && !sk.isLink(p)) { if (force) return; throw fsError("ENOENT", "lstat", p); }
    const st = sk.stat(p, true);
    if (st[0] === "dir" && !rec) { const e = new Error(`Path is a directory: rm returned EISDIR (is a directory) ${p}`); e.code = "ERR_FS_EISDIR"; throw e; }
    call("rm", p, () => sk.rm(p, !!rec));
  }
  const fs = {
    readFileSync: readSync,
    writeFileSync: (p, d, o) => writeSync(p, d, o, false),
    appendFileSync: (p, d, o) => writeSync(p, d, o, true),
    existsSync: (p) => { try { return sk.exists(pathArg(p)); } catch (e) { return false; } },
    statSync: (p, o) => statSync(p, o, false),
    lstatSync: (p, o) => statSync(p, o, true),
    readdirSync,
    mkdirSync,
    mkdtempSync: (prefix) => { const p = prefix + Math.random().toString(36).slice(2, 8); mkdirSync(p); return p; },
    rmSync,
    rmdirSync: (p, o) => { p = pathArg(p); if (o && o.recursive) return rmSync(p, { recursive: true, force: true }); call("rmdir", p, () => sk.rmdir(p)); },
    unlinkSync: (p) => { p = pathArg(p); call("unlink", p, () => sk.unlink(p)); },
    renameSync: (a, b) => { a = pathArg(a); b = pathArg(b); call("rename", a, () => sk.rename(a, b), b); },
    copyFileSync: (a, b, mode) => { a = pathArg(a); b = pathArg(b); if (mode & 1 && sk.exists(b)) throw fsError("EEXIST", "copyfile", a, b); const d = call("copyfile", a, () => sk.readBytes(a), b); call("copyfile", a, () => sk.writeBytes2(b, d, false), b); },
    cpSync: (a, b, o) => { a = pathArg(a); b = pathArg(b); const st = statSync(a); if (st.isDirectory()) { if (!(o && o.recursive)) { const e = new Error(`Recursive option is required to copy a directory: ${a}`); e.code = "ERR_FS_EISDIR"; throw e; } mkdirSync(b, { recursive: true }); for (const n of readdirSync(a)) fs.cpSync(a + "/" + n, b + "/" + n, o); } else fs.copyFileSync(a, b); },
    realpathSync: (p) => { p = pathArg(p); return call("realpath", p, () => sk.realpath(p)); },
    readlinkSync: (p) => { p = pathArg(p); return call("readlink", p, () => sk.readlink(p)); },
    symlinkSync: (t, p) => { p = pathArg(p); call("symlink", t, () => sk.symlink(t, p), p); },
    chmodSync: (p, m) => { p = pathArg(p); call("chmod", p, () => sk.chmod(p, typeof m === "string" ? parseInt(m, 8) : m)); },
    accessSync: (p) => { p = pathArg(p); if (!sk.exists(p)) throw fsError("ENOENT", "access", p); },
    truncateSync: (p, n = 0) => { p = pathArg(p); const d = call("open", p, () => sk.readBytes(p)); call("open", p, () => sk.writeBytes2(p, d.slice(0, n).padEnd(n, "\0"), false)); },
    utimesSync: () => {},
    openSync: () => { throw new Error("fs.openSync: file descriptors are not supported in the sandbox's embedded node; use readFileSync/writeFileSync"); },
    watch: () => { throw new Error("fs.watch is not available in the local sandbox"); },
    createReadStream: (p, o) => {
      const s = new EventEmitterClass();
      queueMicrotask(() => {
        try { const d = readSync(p, o); s.emit("open"); s.emit("data", d); s.emit("end"); s.emit("close"); }
        catch (e) { s.emit("error", e); }
      });
      s.pipe = (dst) => { s.on("data", (d) => dst.write(d)); s.on("end", () => { if (dst !== process.stdout && dst !== process.stderr) dst.end(); }); return dst; };
      s.setEncoding = () => s;
      s[Symbol.asyncIterator] = async function* () { yield readSync(p, o); };
      return s;
    },
    createWriteStream: (p, o) => {
      p = pathArg(p);
      const append = o && o.flags && o.flags.startsWith("a");
      if (!append) writeSync(p, "", null, false);
      const s = new EventEmitterClass();
      s.write = (d, e, cb) => { writeSync(p, d, typeof e === "string" ? e : null, true); const f = [e, cb].find((x) => typeof x === "function"); if (f) queueMicrotask(f); return true; };
      s.end = (d, e, cb) => { if (d !== undefined && typeof d !== "function") s.write(d, e); const f = [d, e, cb].find((x) => typeof x === "function"); queueMicrotask(() => { s.emit("finish"); s.emit("close"); if (f) f(); }); };
      s.path = p;
      return s;
    },
    constants: { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1, COPYFILE_EXCL: 1 },
    Stats,
    Dirent,
  };
  fs.F_OK = 0; fs.R_OK = 4; fs.W_OK = 2; fs.X_OK = 1;
  const CALLBACK_FNS = ["readFile", "writeFile", "appendFile", "stat", "lstat", "readdir", "mkdir", "rm", "rmdir", "unlink", "rename", "copyFile", "realpath", "readlink", "symlink", "chmod", "access", "truncate", "cp", "mkdtemp", "utimes"];
  const promises = {};
  for (const name of CALLBACK_FNS) {
    const sync = fs[name + "Sync"];
    fs[name] = (...a) => {
      const cb = typeof a[a.length - 1] === "function" ? a.pop() : null;
      addTimer(() => {
        let r, err = null;
        try { r = sync(...a); } catch (e) { err = e; }
        if (cb) cb(err, r);
      }, 0, [], false, true);
    };
    promises[name] = (...a) => new Promise((res, rej) => { try { res(sync(...a)); } catch (e) { rej(e); } });
  }
  fs.exists = (p, cb) => addTimer(() => cb(fs.existsSync(p)), 0, [], false, true);
  promises.constants = fs.constants;
  promises.open = () => Promise.reject(new Error("fs.promises.open is not supported in the sandbox's embedded node"));
  fs.promises = promises;

  // ---- os, util, assert, readline, crypto, url ----------------------------
  const os = {
    EOL: "\n",
    platform: () => "linux", type: () => "Linux", arch: () => "x64", release: () => "6.0.0-sandkeep",
    hostname: () => "sandbox", homedir: () => boot.env.HOME || "/workspace", tmpdir: () => "/tmp",
    userInfo: () => ({ username: boot.env.USER || "sandbox", uid: 1000, gid: 1000, shell: "/bin/bash", homedir: boot.env.HOME || "/workspace" }),
    cpus: () => [{ model: "sandkeep", speed: 0, times: { user: 0, nice: 0, sys: 0, idle: 0, irq: 0 } }],
    totalmem: () => 256 * 1024 * 1024, freemem: () => 128 * 1024 * 1024,
    uptime: () => sk.monotonic() / 1000, loadavg: () => [0, 0, 0], networkInterfaces: () => ({}),
    endianness: () => "LE", availableParallelism: () => 1, constants: { signals: {} }, devNull: "/dev/null",
  };
  function isDeepStrictEqual(a, b, seen = []) {
    if (Object.is(a, b)) return true;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
    if (seen.some(([x, y]) => x === a && y === b)) return true;
    seen = seen.concat([[a, b]]);
    if (a instanceof Date) return a.getTime() === b.getTime();
    if (a instanceof RegExp) return String(a) === String(b);
    if (a instanceof Map) { if (a.size !== b.size) return false; for (const [k, v] of a) { if (!b.has(k) || !isDeepStrictEqual(v, b.get(k), seen)) return false; } return true; }
    if (a instanceof Set) { if (a.size !== b.size) return false; for (const v of a) if (!b.has(v)) return false; return true; }
    const ka = Object.keys(a), kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    for (const k of ka) if (!Object.prototype.hasOwnProperty.call(b, k) || !isDeepStrictEqual(a[k], b[k], seen)) return false;
    return true;
  }
  function isDeepLooseEqual(a, b) {
    // eslint-disable-next-line eqeqeq
    if (a == b) return true;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    const ka = Object.keys(a), kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => isDeepLooseEqual(a[k], b[k]));
  }
  const util = {
    inspect, format,
    formatWithOptions: (o, ...a) => format(...a),
    isDeepStrictEqual,
    promisify(f) {
      if (f[util.promisify.custom]) return f[util.promisify.custom];
      return (...a) => new Promise((res, rej) => f(...a, (e, ...r) => (e ? rej(e) : res(r.length > 1 ? r : r[0]))));
    },
    callbackify: (f) => (...a) => { const cb = a.pop(); f(...a).then((r) => cb(null, r), (e) => cb(e)); },
    inherits(c, s) { Object.setPrototypeOf(c.prototype, s.prototype); Object.setPrototypeOf(c, s); c.super_ = s; },
    deprecate: (f) => f,
    debuglog: () => () => {},
    isArray: Array.isArray,
    types: {
      isDate: (v) => v instanceof Date, isRegExp: (v) => v instanceof RegExp, isPromise: (v) => v instanceof Promise,
      isMap: (v) => v instanceof Map, isSet: (v) => v instanceof Set, isTypedArray: (v) => ArrayBuffer.isView(v) && !(v instanceof DataView),
      isNativeError: (v) => v instanceof Error, isAsyncFunction: (v) => typeof v === "function" && v.constructor && v.constructor.name === "AsyncFunction",
      isUint8Array: (v) => v instanceof Uint8Array, isArrayBuffer: (v) => v instanceof ArrayBuffer,
    },
    TextEncoder: TextEncoderClass, TextDecoder: TextDecoderClass,
    stripVTControlCharacters: (s) => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, ""),
    styleText: (f, s) => s,
    parseArgs: undefined,
  };
  util.promisify.custom = Symbol.for("nodejs.util.promisify.custom");
  inspect.custom = Symbol.for("nodejs.util.inspect.custom");
  inspect.defaultOptions = { depth: 2 };
  class AssertionError extends Error {
    constructor(o) { super(o.message); this.name = "AssertionError"; this.code = "ERR_ASSERTION"; this.actual = o.actual; this.expected = o.expected; this.operator = o.operator; this.generatedMessage = !o.userMessage; }
  }
  function fail(actual, expected, message, operator, dflt) {
    if (message instanceof Error) throw message;
    throw new AssertionError({ message: message !== undefined ? message : dflt, actual, expected, operator, userMessage: message !== undefined });
  }
  function assert(v, m) { if (!v) fail(v, true, m, "==", "The expression evaluated to a falsy value:\n\n  assert(" + inspect(v) + ")\n"); }
  Object.assign(assert, {
    ok: (v, m) => { if (!v) fail(v, true, m, "==", "The expression evaluated to a falsy value:\n\n  assert.ok(" + inspect(v) + ")\n"); },
    // eslint-disable-next-line eqeqeq
    equal: (a, b, m) => { if (!(a == b)) fail(a, b, m, "==", `${inspect(a)} == ${inspect(b)}`); },
    // eslint-disable-next-line eqeqeq
    notEqual: (a, b, m) => { if (a == b) fail(a, b, m, "!=", `${inspect(a)} != ${inspect(b)}`); },
    strictEqual: (a, b, m) => { if (!Object.is(a, b)) fail(a, b, m, "strictEqual", `Expected values to be strictly equal:\n\n${inspect(a)} !== ${inspect(b)}\n`); },
    notStrictEqual: (a, b, m) => { if (Object.is(a, b)) fail(a, b, m, "notStrictEqual", `Expected "actual" to be strictly unequal to: ${inspect(b)}`); },
    deepStrictEqual: (a, b, m) => { if (!isDeepStrictEqual(a, b)) fail(a, b, m, "deepStrictEqual", `Expected values to be strictly deep-equal:\n${inspect(a)}\n\nshould equal\n\n${inspect(b)}`); },
    deepEqual: (a, b, m) => { if (!isDeepLooseEqual(a, b)) fail(a, b, m, "deepEqual", `Expected values to be loosely deep-equal:\n\n${inspect(a)}\n\nshould loosely deep-equal\n\n${inspect(b)}`); },
    notDeepStrictEqual: (a, b, m) => { if (isDeepStrictEqual(a, b)) fail(a, b, m, "notDeepStrictEqual", "Expected \"actual\" not to be strictly deep-equal to: " + inspect(b)); },
    throws: (f, exp, m) => { try { f(); } catch (e) { if (typeof exp === "function" && exp.prototype !== undefined && !(e instanceof exp)) throw e; if (exp instanceof RegExp && !exp.test(String(e && e.message !== undefined ? e : e))) fail(e, exp, m, "throws", "The input did not match the regular expression " + exp); return; } fail(undefined, exp, typeof exp === "string" ? exp : m, "throws", "Missing expected exception."); },
    doesNotThrow: (f) => { f(); },
    rejects: async (p, exp, m) => { try { await (typeof p === "function" ? p() : p); } catch (e) { return; } fail(undefined, exp, m, "rejects", "Missing expected rejection."); },
    match: (s, r, m) => { if (!r.test(s)) fail(s, r, m, "match", `The input did not match the regular expression ${r}. Input:\n\n${inspect(s)}\n`); },
    fail: (m) => fail(undefined, undefined, m, "fail", "Failed"),
    AssertionError,
  });
  assert.strict = assert;
  function createInterface(o) {
    const input = o && o.input !== undefined ? o.input : o;
    const rl = new EventEmitterClass();
    let closed = false;
    const queue = [];
    const waiters = [];
    rl.close = () => { if (!closed) { closed = true; rl.emit("close"); for (const w of waiters.splice(0)) w({ done: true, value: undefined }); } };
    rl.setPrompt = () => {}; rl.prompt = () => {}; rl.pause = () => rl; rl.resume = () => rl;
    rl.write = (s) => { if (o && o.output) o.output.write(s); };
    rl.question = (q, cb) => { if (o && o.output) o.output.write(q); rl.once("line", cb); };
    let buf = "";
    const feed = (chunk) => {
      buf += typeof chunk === "string" ? chunk : chunk.toString();
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        let line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.endsWith("\r")) line = line.slice(0, -1);
        emitLine(line);
      }
    };
    const emitLine = (line) => {
      if (closed) return;
      if (waiters.length) waiters.shift()({ done: false, value: line });
      else queue.push(line);
      rl.emit("line", line);
    };
    if (input && input.on) {
      input.on("data", feed);
      input.on("end", () => { if (buf.length) { const l = buf; buf = ""; emitLine(l.endsWith("\r") ? l.slice(0, -1) : l); } rl.close(); });
    }
    rl[Symbol.asyncIterator] = () => ({
      next: () => {
        if (queue.length) return Promise.resolve({ done: false, value: queue.shift() });
        if (closed) return Promise.resolve({ done: true, value: undefined });
        return new Promise((r) => waiters.push(r));
      },
      return: () => { rl.close(); return Promise.resolve({ done: true, value: undefined }); },
      [Symbol.asyncIterator]() { return this; },
    });
    // Lines consumed by `for await` must not also be queued for `on('line')`.
    const origOnLine = rl.on.bind(rl);
    rl.on = (n, f) => { if (n === "line") { queue.length = 0; } return origOnLine(n, f); };
    return rl;
  }
  const readline = { createInterface, Interface: EventEmitterClass, clearLine: () => true, cursorTo: () => true, moveCursor: () => true, emitKeypressEvents: () => {} };
  readline.promises = { createInterface: (o) => { const rl = createInterface(o); rl.question = (q) => new Promise((res) => { if (o && o.output) o.output.write(q); rl.once("line", res); }); return rl; } };
  class Hash {
    constructor(alg) {
      this.alg = String(alg).toLowerCase().replace("-", "");
      if (!["md5", "sha1", "sha256", "sha512", "sha384", "sha224"].includes(this.alg)) throw new Error("Digest method not supported");
      this.parts = [];
    }
    update(d, enc) { this.parts.push(toBytes(d, enc)[1] ? toBytes(d, enc)[0] : latin1(BufferClass.from(String(d), enc))); return this; }
    digest(enc) { const raw = fromLatin1(sk.hash(this.alg, this.parts.join(""))); return enc ? raw.toString(enc) : raw; }
    copy() { const h = new Hash(this.alg); h.parts = [...this.parts]; return h; }
  }
  const crypto = {
    createHash: (a) => new Hash(a),
    randomBytes: (n, cb) => { const b = fromLatin1(sk.random(n)); if (cb) { queueMicrotask(() => cb(null, b)); return undefined; } return b; },
    randomUUID: () => {
      const b = fromLatin1(sk.random(16));
      b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
      const h = b.toString("hex");
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    },
    randomInt: (a, b) => { if (b === undefined) { b = a; a = 0; } const r = fromLatin1(sk.random(6)); let n = 0; for (const x of r) n = n * 256 + x; return a + (n % (b - a)); },
    getRandomValues: (arr) => { const r = sk.random(arr.byteLength); const u = new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength); for (let i = 0; i < r.length; i++) u[i] = r.charCodeAt(i); return arr; },
    createHmac: () => { throw new Error("crypto.createHmac is not available in the sandbox's embedded node"); },
    webcrypto: {},
  };
  crypto.webcrypto.getRandomValues = crypto.getRandomValues;
  crypto.webcrypto.randomUUID = crypto.randomUUID;
  class URLSearchParamsClass {
    constructor(init) {
      this._list = [];
      if (typeof init === "string") {
        for (const part of init.replace(/^\?/, "").split("&")) {
          if (!part) continue;
          const i = part.indexOf("=");
          const dec = (s) => decodeURIComponent(s.replace(/\+/g, " "));
          this._list.push(i < 0 ? [dec(part), ""] : [dec(part.slice(0, i)), dec(part.slice(i + 1))]);
        }
      } else if (init && typeof init === "object") {
        for (const [k, v] of Array.isArray(init) || init instanceof URLSearchParamsClass ? init : Object.entries(init)) this._list.push([String(k), String(v)]);
      }
    }
    get(k) { const e = this._list.find((x) => x[0] === k); return e ? e[1] : null; }
    getAll(k) { return this._list.filter((x) => x[0] === k).map((x) => x[1]); }
    has(k) { return this._list.some((x) => x[0] === k); }
    set(k, v) { const i = this._list.findIndex((x) => x[0] === k); if (i < 0) this._list.push([k, String(v)]); else { this._list[i][1] = String(v); this._list = this._list.filter((x, j) => x[0] !== k || j === i); } this._update(); }
    append(k, v) { this._list.push([k, String(v)]); this._update(); }
    delete(k) { this._list = this._list.filter((x) => x[0] !== k); this._update(); }
    keys() { return this._list.map((x) => x[0])[Symbol.iterator](); }
    values() { return this._list.map((x) => x[1])[Symbol.iterator](); }
    entries() { return this._list.map((x) => [x[0], x[1]])[Symbol.iterator](); }
    forEach(f) { for (const [k, v] of this._list) f(v, k, this); }
    get size() { return this._list.length; }
    sort() { this._list.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)); this._update(); }
    toString() { const enc = (s) => encodeURIComponent(s).replace(/%20/g, "+"); return this._list.map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&"); }
    _update() { if (this._url) this._url._search = this._list.length ? "?" + this.toString() : ""; }
    [Symbol.iterator]() { return this.entries(); }
  }
  Object.defineProperty(URLSearchParamsClass, "name", { value: "URLSearchParams" });
  class URLClass {
    constructor(input, base) {
      input = String(input);
      const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^:/?#]*)(?::(\d*))?)?([^?#]*)(\?[^#]*)?(#.*)?$/.exec(input);
      if (!m) {
        if (base === undefined) { const e = new TypeError("Invalid URL"); e.code = "ERR_INVALID_URL"; e.input = input; throw e; }
        const b = new URLClass(base);
        let p = input.startsWith("/") ? input : b.pathname.replace(/[^/]*$/, "") + input;
        const [pathPart, rest = ""] = p.split(/(?=[?#])/);
        return new URLClass(`${b.protocol}//${b.host}${path.normalize(pathPart)}${rest}`);
      }
      this.protocol = m[1].toLowerCase() + ":";
      this.username = m[3] || "";
      this.password = m[4] || "";
      this.hostname = (m[5] || "").toLowerCase();
      const dflt = { "http:": "80", "https:": "443", "ftp:": "21", "ws:": "80", "wss:": "443" }[this.protocol];
      this.port = m[6] && m[6] !== dflt ? m[6] : "";
      this.pathname = m[7] || (m[2] !== undefined ? "/" : "");
      this._search = m[8] && m[8] !== "?" ? m[8] : "";
      this.hash = m[9] && m[9] !== "#" ? m[9] : "";
      this.searchParams = new URLSearchParamsClass(this._search);
      this.searchParams._url = this;
    }
    get search() { return this._search; }
    set search(s) { this._search = s ? (s.startsWith("?") ? s : "?" + s) : ""; this.searchParams = new URLSearchParamsClass(this._search); this.searchParams._url = this; }
    get host() { return this.hostname + (this.port ? ":" + this.port : ""); }
    get origin() { return `${this.protocol}//${this.host}`; }
    get href() { const auth = this.username ? this.username + (this.password ? ":" + this.password : "") + "@" : ""; return `${this.protocol}${this.hostname || this.protocol === "file:" ? "//" : ""}${auth}${this.host}${this.pathname}${this._search}${this.hash}`; }
    toString() { return this.href; }
    toJSON() { return this.href; }
  }
  Object.defineProperty(URLClass, "name", { value: "URL" });
  const url = {
    URL: URLClass, URLSearchParams: URLSearchParamsClass,
    fileURLToPath: (u) => decodeURIComponent(typeof u === "string" ? new URLClass(u).pathname : u.pathname),
    pathToFileURL: (p) => new URLClass("file://" + path.resolve(p)),
    parse: (s) => { const u = new URLClass(s); return { protocol: u.protocol, host: u.host, hostname: u.hostname, port: u.port || null, pathname: u.pathname, search: u.search || null, query: u.search ? u.search.slice(1) : null, hash: u.hash || null, href: u.href, path: u.pathname + u.search }; },
    format: (u) => (typeof u === "string" ? u : u.href || ""),
  };

  // ---- structuredClone, Date on the run's clock, toLocaleString ------------
  function clone(v, seen = new Map()) {
    if (typeof v !== "object" || v === null) {
      if (typeof v === "function" || typeof v === "symbol") { const e = new Error(`${String(v)} could not be cloned.`); e.name = "DataCloneError"; throw e; }
      return v;
    }
    if (seen.has(v)) return seen.get(v);
    let out;
    if (v instanceof Date) return new Date(v.getTime());
    if (v instanceof RegExp) return new RegExp(v.source, v.flags);
    if (v instanceof Map) { out = new Map(); seen.set(v, out); for (const [k, x] of v) out.set(clone(k, seen), clone(x, seen)); return out; }
    if (v instanceof Set) { out = new Set(); seen.set(v, out); for (const x of v) out.add(clone(x, seen)); return out; }
    if (ArrayBuffer.isView(v)) return v.slice();
    out = Array.isArray(v) ? [] : {};
    seen.set(v, out);
    for (const k of Object.keys(v)) out[k] = clone(v[k], seen);
    return out;
  }
  const RealDate = Date;
  // The sandbox's time zone is UTC, as the shell's `date`: local-time
  // readings and local date strings never depend on the host's zone.
  const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
  class SandboxDate extends RealDate {
    constructor(...a) {
      if (a.length === 0) super(sk.now());
      else if (a.length === 1 && typeof a[0] === "string" && LOCAL_TIME.test(a[0].trim())) super(a[0].trim().replace(" ", "T") + "Z");
      else if (a.length > 1) super(RealDate.UTC(...a));
      else super(...a);
    }
    static now() { return sk.now(); }
  }
  for (const [local, utc] of [["getFullYear", "getUTCFullYear"], ["getMonth", "getUTCMonth"], ["getDate", "getUTCDate"], ["getDay", "getUTCDay"], ["getHours", "getUTCHours"], ["getMinutes", "getUTCMinutes"], ["getSeconds", "getUTCSeconds"], ["getMilliseconds", "getUTCMilliseconds"], ["setFullYear", "setUTCFullYear"], ["setMonth", "setUTCMonth"], ["setDate", "setUTCDate"], ["setHours", "setUTCHours"], ["setMinutes", "setUTCMinutes"], ["setSeconds", "setUTCSeconds"], ["setMilliseconds", "setUTCMilliseconds"]]) {
    RealDate.prototype[local] = RealDate.prototype[utc];
  }
  RealDate.prototype.getTimezoneOffset = function () { return 0; };
  const WD = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  const MO = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const two = (n) => String(n).padStart(2, "0");
  RealDate.prototype.toDateString = function () {
    if (isNaN(this.getTime())) return "Invalid Date";
    return `${WD[this.getUTCDay()]} ${MO[this.getUTCMonth()]} ${two(this.getUTCDate())} ${String(this.getUTCFullYear()).padStart(4, "0")}`;
  };
  RealDate.prototype.toTimeString = function () {
    if (isNaN(this.getTime())) return "Invalid Date";
    return `${two(this.getUTCHours())}:${two(this.getUTCMinutes())}:${two(this.getUTCSeconds())} GMT+0000 (Coordinated Universal Time)`;
  };
  RealDate.prototype.toString = function () {
    if (isNaN(this.getTime())) return "Invalid Date";
    return `${this.toDateString()} ${this.toTimeString()}`;
  };
  Object.defineProperty(SandboxDate, "name", { value: "Date" });
  // String comparison as ICU's root collation orders common text (Node's
  // default): letters case-insensitively with accents second and lower
  // case before upper case last; punctuation before digits before letters.
  function collationKey(s) {
    const base = [], accents = [], cases = [];
    for (const ch of s) {
      const d = ch.normalize("NFD");
      const b = d[0];
      const low = b.toLowerCase();
      const cls = /[a-z]/i.test(b) || low !== b.toUpperCase() ? 3 : /[0-9]/.test(b) ? 2 : 1;
      base.push(cls * 0x110000 + low.codePointAt(0));
      accents.push(d.length > 1 ? d.codePointAt(1) : 0);
      cases.push(b !== low ? 1 : 0);
    }
    return [base, accents, cases];
  }
  function compareArrays(a, b) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }
  String.prototype.localeCompare = function (other, loc, opts) {
    const a = collationKey(String(this)), b = collationKey(String(other));
    const sens = opts && opts.sensitivity;
    let r = compareArrays(a[0], b[0]);
    if (r || sens === "base") return r;
    r = compareArrays(a[1], b[1]);
    if (r || sens === "accent") return r;
    return compareArrays(a[2], b[2]);
  };
  // A small Intl for en-US (QuickJS has none): numbers (decimal, percent,
  // currency with $ € £ ¥), dates in the run's UTC, and a collator.
  const CURRENCY = { USD: "$", EUR: "€", GBP: "£", JPY: "¥", INR: "₹" };
  function formatNumber(n, o = {}) {
    if (!isFinite(n)) return isNaN(n) ? "NaN" : (n < 0 ? "-∞" : "∞");
    const style = o.style || "decimal";
    let v = style === "percent" ? n * 100 : n;
    const cur = style === "currency" ? (o.currency || "USD").toUpperCase() : null;
    const dflt = cur ? (cur === "JPY" ? 0 : 2) : 0;
    let min = o.minimumFractionDigits !== undefined ? o.minimumFractionDigits : dflt;
    let max = o.maximumFractionDigits !== undefined ? o.maximumFractionDigits : Math.max(min, style === "percent" ? 0 : cur ? dflt : 3);
    if (max < min) max = min;
    let [int, frac = ""] = Math.abs(v).toFixed(max).split(".");
    while (frac.length > min && frac.endsWith("0")) frac = frac.slice(0, -1);
    if (o.useGrouping !== false) int = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    let body = int + (frac ? "." + frac : "");
    if (cur) body = (CURRENCY[cur] || cur + "\u00a0") + body;
    if (style === "percent") body += "%";
    return (v < 0 && Number(Math.abs(v).toFixed(max)) !== 0 ? "-" : "") + body;
  }
  const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
  const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
  function dateParts(d) {
    return { y: d.getUTCFullYear(), mo: d.getUTCMonth(), d: d.getUTCDate(), h: d.getUTCHours(), mi: d.getUTCMinutes(), s: d.getUTCSeconds(), wd: d.getUTCDay() };
  }
  function formatDate(d, o) {
    if (isNaN(d.getTime())) return "Invalid Date";
    const p = dateParts(d);
    if (o && (o.month === "long" || o.month === "short")) {
      const m = o.month === "long" ? MONTHS[p.mo] : MONTHS[p.mo].slice(0, 3);
      const wd = o.weekday ? (o.weekday === "long" ? DAYS[p.wd] : DAYS[p.wd].slice(0, 3)) + ", " : "";
      return `${wd}${m} ${p.d}, ${p.y}`;
    }
    return `${p.mo + 1}/${p.d}/${p.y}`;
  }
  function formatTime(d) {
    const p = dateParts(d);
    const h12 = p.h % 12 === 0 ? 12 : p.h % 12;
    return `${h12}:${String(p.mi).padStart(2, "0")}:${String(p.s).padStart(2, "0")} ${p.h < 12 ? "AM" : "PM"}`;
  }
  const Intl = {
    NumberFormat: class NumberFormat {
      constructor(loc, o) { this.o = o || {}; }
      format(n) { return formatNumber(Number(n), this.o); }
      resolvedOptions() { return { locale: "en-US", ...this.o }; }
    },
    DateTimeFormat: class DateTimeFormat {
      constructor(loc, o) { this.o = o || {}; }
      format(d) { return formatDate(d === undefined ? new SandboxDate() : new RealDate(d), this.o); }
      resolvedOptions() { return { locale: "en-US", timeZone: "UTC", calendar: "gregory", numberingSystem: "latn" }; }
    },
    Collator: class Collator {
      constructor(loc, o) { this.o = o || {}; }
      compare = (a, b) => String(a).localeCompare(String(b), undefined, this.o);
    },
  };
  if (typeof G.Intl === "undefined") G.Intl = Intl;
  RealDate.prototype.toLocaleDateString = function (loc, o) { return formatDate(this, o); };
  RealDate.prototype.toLocaleTimeString = function () { return isNaN(this.getTime()) ? "Invalid Date" : formatTime(this); };
  RealDate.prototype.toLocaleString = function (loc, o) { return isNaN(this.getTime()) ? "Invalid Date" : `${formatDate(this, o)}, ${formatTime(this)}`; };
  // JSON.parse's errors without QuickJS's "(line N column M)" suffix, as V8 words them.
  const realParse = JSON.parse;
  JSON.parse = function parse(text, reviver) {
    try {
      return realParse(text, reviver);
    } catch (e) {
      if (e instanceof SyntaxError && typeof e.message === "string") e.message = e.message.replace(/ \(line \d+ column \d+\)$/, "");
      throw e;
    }
  };
  const realToLocale = Number.prototype.toLocaleString;
  Number.prototype.toLocaleString = function (loc, o) {
    if (loc === undefined || /^en/.test(loc)) return formatNumber(Number(this), o);
    return realToLocale.call(this, loc, o);
  };

  // ---- modules: require() over the sandbox's files ------------------------
  const NETWORK = ["http", "https", "http2", "net", "tls", "dgram", "dns", "inspector"];
  const PROCESSES = ["child_process", "worker_threads", "cluster"];
  const builtins = {
    fs, "fs/promises": promises, path, "path/posix": path, os, util, events: eventsModule, assert, "assert/strict": assert,
    readline, "readline/promises": readline.promises, crypto, url, buffer: { Buffer: BufferClass, constants: { MAX_LENGTH: 2 ** 31 - 1 } },
    process, timers: { setTimeout: G.setTimeout, setInterval: G.setInterval, setImmediate: G.setImmediate, clearTimeout: clearTimer, clearInterval: clearTimer, clearImmediate: clearTimer },
    "timers/promises": { setTimeout: (ms, v) => new Promise((r) => addTimer(() => r(v), ms, [], false, false)), setImmediate: (v) => new Promise((r) => addTimer(() => r(v), 0, [], false, true)) },
    string_decoder: { StringDecoder: class StringDecoder { constructor(e) { this.e = e || "utf8"; } write(b) { return typeof b === "string" ? b : BufferClass.from(b).toString(this.e); } end(b) { return b ? this.write(b) : ""; } } },
    stream: { Readable: EventEmitterClass, Writable: EventEmitterClass, Transform: EventEmitterClass, PassThrough: EventEmitterClass, Stream: EventEmitterClass },
    module: { builtinModules: [], createRequire: (f) => makeRequire(pathArg(f instanceof URLClass ? url.fileURLToPath(f) : f.startsWith("file:") ? url.fileURLToPath(f) : f)) },
    perf_hooks: { performance: G.performance },
    v8: { getHeapStatistics: () => ({ total_heap_size: 0, used_heap_size: 0, heap_size_limit: 0 }) },
    vm: { runInNewContext: (code) => (0, eval)(code), runInThisContext: (code) => (0, eval)(code) },
    tty: { isatty: () => false },
    constants: {},
    zlib: undefined,
  };
  builtins.module.builtinModules = Object.keys(builtins).concat(NETWORK, PROCESSES);
  function builtin(name) {
    const bare = name.startsWith("node:") ? name.slice(5) : name;
    if (NETWORK.includes(bare) || PROCESSES.includes(bare)) throw refusal(bare);
    if (Object.prototype.hasOwnProperty.call(builtins, bare) && builtins[bare] !== undefined) return builtins[bare];
    if (name.startsWith("node:") || bare === "zlib") {
      const e = new Error(`Cannot find module '${name}': not available in the sandbox's embedded node`);
      e.code = "MODULE_NOT_FOUND";
      throw e;
    }
    return undefined;
  }
  const cache = Object.create(null);
  function isFile(p) { try { return sk.stat(p, false)[0] === "file"; } catch (e) { return false; } }
  function isDir(p) { try { return sk.stat(p, false)[0] === "dir"; } catch (e) { return false; } }
  function resolveFile(p) {
    if (isFile(p)) return p;
    for (const ext of [".js", ".json", ".cjs", ".mjs"]) if (isFile(p + ext)) return p + ext;
    if (isDir(p)) {
      if (isFile(p + "/package.json")) {
        try { const m = JSON.parse(sk.readText(p + "/package.json")).main; if (m) { const r = resolveFile(path.resolve(p, m)); if (r) return r; } } catch (e) { /* fall through */ }
      }
      for (const ext of ["/index.js", "/index.json", "/index.cjs"]) if (isFile(p + ext)) return p + ext;
    }
    return null;
  }
  function resolveFrom(dir, request) {
    if (request.startsWith("./") || request.startsWith("../") || request.startsWith("/") || request === "." || request === "..") {
      return resolveFile(path.resolve(dir, request));
    }
    // From the absolute directory up to the root (`-e` code's dir is ".").
    for (let d = path.resolve(dir); ; d = path.dirname(d)) {
      const r = resolveFile(path.join(d, "node_modules", request));
      if (r) return r;
      if (d === "/") return null;
    }
  }
  function notFound(request, from) {
    const e = new Error(`Cannot find module '${request}'\nRequire stack:\n- ${from}`);
    e.code = "MODULE_NOT_FOUND";
    e.requireStack = [from];
    return e;
  }
  class Module {
    constructor(id, parent) { this.id = id; this.filename = id; this.path = path.dirname(id); this.exports = {}; this.loaded = false; this.children = []; this.paths = []; this.parent = parent; }
  }
  let mainModule;
  function loadModule(filename, parent) {
    if (cache[filename]) return cache[filename].exports;
    const m = new Module(filename, parent);
    cache[filename] = m;
    try {
      const src = sk.readText(filename);
      if (filename.endsWith(".json")) {
        try { m.exports = JSON.parse(src); } catch (e) { e.message = filename + ": " + e.message; throw e; }
      } else if (filename.endsWith(".mjs") || (filename.endsWith(".js") && declaredType(path.dirname(filename)) === "module")) {
        const e = new Error(`require() of ES Module ${filename} not supported.\nInstead change the require of ${path.basename(filename)} to a dynamic import() which is available in all CommonJS modules.`);
        e.code = "ERR_REQUIRE_ESM";
        throw e;
      } else {
        runCommonJs(m, src.replace(/^#!.*/, ""));
      }
    } catch (e) {
      delete cache[filename];
      throw e;
    }
    m.loaded = true;
    return m.exports;
  }
  function runCommonJs(m, src) {
    const wrapper = sk.compile("(function (exports, require, module, __filename, __dirname) {" + src + "\n})", m.filename);
    wrapper.call(m.exports, m.exports, makeRequire(m.filename, m), m, m.filename, path.dirname(m.filename));
  }
  function makeRequire(filename, m) {
    const dir = path.dirname(filename);
    const req = (request) => {
      if (typeof request !== "string") throw new TypeError('The "id" argument must be of type string');
      const b = builtin(request);
      if (b !== undefined) return b;
      const r = resolveFrom(dir, request);
      if (!r) throw notFound(request, filename);
      return loadModule(r, m);
    };
    req.resolve = (request) => { if (builtin(request) !== undefined) return request; const r = resolveFrom(dir, request); if (!r) throw notFound(request, filename); return r; };
    req.cache = cache;
    Object.defineProperty(req, "main", { get: () => mainModule, enumerable: true });
    return req;
  }
  // The nearest package.json's "type" ("" when none says).
  function declaredType(dir) {
    for (let d = path.resolve(dir); ; d = path.dirname(d)) {
      if (isFile(d + "/package.json")) {
        try { return JSON.parse(sk.readText(d + "/package.json")).type || ""; } catch (e) { return ""; }
      }
      if (d === "/") return "";
    }
  }
  // Node 20 (since 20.19) runs a .js file with module syntax as an ES
  // module when no package.json declares a type.
  const ESM_SYNTAX = /^\s*(import\s*[\w{*'"]|export\s+(default|const|let|var|function|async|class)\b|export\s*[{*])/m;
  function packageType(dir, src) {
    const t = declaredType(dir);
    if (t) return t;
    return src !== undefined && ESM_SYNTAX.test(src) ? "module" : "commonjs";
  }

  // ---- globals ------------------------------------------------------------
  Object.assign(G, {
    console, process, Buffer: BufferClass, TextEncoder: TextEncoderClass, TextDecoder: TextDecoderClass,
    URL: URLClass, URLSearchParams: URLSearchParamsClass,
    setTimeout: (f, ms, ...a) => addTimer(f, ms, a, false, false),
    setInterval: (f, ms, ...a) => addTimer(f, ms, a, true, false),
    setImmediate: (f, ...a) => addTimer(f, 0, a, false, true),
    clearTimeout: clearTimer, clearInterval: clearTimer, clearImmediate: clearTimer,
    structuredClone: (v) => clone(v),
    atob: (s) => latin1(b64decode(s)),
    btoa: (s) => b64encode(Array.from(String(s), (c) => c.charCodeAt(0) & 255), false),
    global: G,
    Date: SandboxDate,
    performance: { now: () => sk.monotonic(), timeOrigin: sk.now(), mark() {}, measure() {} },
    fetch: () => Promise.reject(refusal("fetch")),
    crypto: crypto.webcrypto,
  });
  G.setTimeout[util.promisify.custom] = (ms, v) => new Promise((r) => addTimer(() => r(v), ms, [], false, false));
  G.setImmediate[util.promisify.custom] = (v) => new Promise((r) => addTimer(() => r(v), 0, [], false, true));
  class EventClass {
    constructor(type, o) { this.type = type; this.defaultPrevented = false; this.cancelable = !!(o && o.cancelable); this.timeStamp = sk.monotonic(); }
    preventDefault() { if (this.cancelable) this.defaultPrevented = true; }
    stopPropagation() {}
  }
  class EventTargetClass {
    constructor() { Object.defineProperty(this, "_l", { value: new Map() }); }
    addEventListener(t, f, o) { const l = this._l.get(t) || []; l.push({ f, once: !!(o && o.once) }); this._l.set(t, l); }
    removeEventListener(t, f) { const l = this._l.get(t); if (l) this._l.set(t, l.filter((x) => x.f !== f)); }
    dispatchEvent(e) { const l = this._l.get(e.type) || []; for (const x of [...l]) { if (x.once) this.removeEventListener(e.type, x.f); typeof x.f === "function" ? x.f.call(this, e) : x.f.handleEvent(e); } return !e.defaultPrevented; }
  }
  class AbortSignalClass extends EventTargetClass {
    constructor() { super(); this.aborted = false; this.reason = undefined; this.onabort = null; }
    throwIfAborted() { if (this.aborted) throw this.reason; }
    static abort(r) { const c = new AbortControllerClass(); c.abort(r); return c.signal; }
    static timeout(ms) { const c = new AbortControllerClass(); addTimer(() => { const e = new Error("The operation was aborted due to timeout"); e.name = "TimeoutError"; c.abort(e); }, ms, [], false, false); return c.signal; }
  }
  class AbortControllerClass {
    constructor() { this.signal = new AbortSignalClass(); }
    abort(reason) {
      const s = this.signal;
      if (s.aborted) return;
      s.aborted = true;
      if (reason === undefined) { reason = new Error("This operation was aborted"); reason.name = "AbortError"; }
      s.reason = reason;
      const e = new EventClass("abort");
      if (typeof s.onabort === "function") s.onabort(e);
      s.dispatchEvent(e);
    }
  }
  for (const [n, c] of [["Event", EventClass], ["EventTarget", EventTargetClass], ["AbortSignal", AbortSignalClass], ["AbortController", AbortControllerClass]]) {
    Object.defineProperty(c, "name", { value: n });
    if (typeof G[n] === "undefined") G[n] = c;
  }
  if (typeof G.queueMicrotask !== "function") G.queueMicrotask = (f) => Promise.resolve().then(f);
  builtins.timers.setTimeout = G.setTimeout;
  builtins.timers.setInterval = G.setInterval;
  builtins.timers.setImmediate = G.setImmediate;
  builtins.perf_hooks.performance = G.performance;

  // What lib.rs calls.
  G.__sk_host = {
    timers,
    inspect,
    logText: (v) => format(v),
    runTicks,
    errorText,
    builtin,
    builtinKeys: (name) => { const b = builtin(name); return b && typeof b === "object" || typeof b === "function" ? Object.keys(b).filter((k) => IDENT.test(k) && k !== "default") : []; },
    requireFile: (filename) => loadModule(filename, null),
    cjsKeys: (filename) => { const e = loadModule(filename, null); return e && (typeof e === "object" || typeof e === "function") ? Object.keys(e).filter((k) => IDENT.test(k) && k !== "default") : []; },
    packageType,
    runMain(kind, src, filename) {
      if (kind === "cjs") {
        const m = new Module(filename, null);
        m.id = ".";
        mainModule = m;
        cache[filename] = m;
        runCommonJs(m, src.replace(/^#!.*/, ""));
        m.loaded = true;
        return undefined;
      }
      // -e / -p: a script in the global scope with require and friends.
      const m = new Module(filename, null);
      m.id = "[eval]";
      mainModule = m;
      G.require = makeRequire(filename, m);
      G.module = m;
      G.exports = m.exports;
      G.__filename = "[eval]";
      G.__dirname = ".";
      return sk.compileScript(src, "[eval]");
    },
    emitExit(code) { if (!exiting) { exiting = true; process.emit("exit", code); } },
    exitCode: () => exitCode,
    rejections: new Map(),
  };
});
