// The declarations against what the entry points export: every entry in
// package.json's "exports" with types, imported as users import it, must
// export each value its .d.ts declares and declare each value it exports;
// and so for each exported class's own methods, accessors and static
// members. The .d.ts files are written by hand: scripts/check-types.mjs
// checks the data shapes against Rust, this checks the API's names.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const root = new URL("../..", import.meta.url).pathname;
const { exports } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** Each entry with types: its import specifier and its ESM declarations. */
const entries = Object.entries(exports)
  .filter(([, target]) => typeof target === "object")
  .map(([path, target]) => ({ specifier: `agent-replay${path.slice(1)}`, types: target.types }));

const program = ts.createProgram(
  entries.map((e) => join(root, e.types)),
  { noEmit: true, strict: true, target: ts.ScriptTarget.ES2022, types: ["node"] },
);
const checker = program.getTypeChecker();

/** What an exported symbol stands for (through `export { X } from`). */
const resolved = (symbol) =>
  symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;

/** Member names TypeScript lists that no JS name matches: the constructor,
 * `prototype`, and members named by symbols (`[Symbol.dispose]`). */
const named = (name) => !name.startsWith("__") && name !== "prototype";

/** The value names a .d.ts module exports, and its classes' declared members. */
function declared(file) {
  const module = checker.getSymbolAtLocation(program.getSourceFile(join(root, file)));
  const values = new Map();
  for (const symbol of checker.getExportsOfModule(module)) {
    const target = resolved(symbol);
    if (!(target.flags & ts.SymbolFlags.Value)) continue;
    values.set(symbol.name, target.flags & ts.SymbolFlags.Class ? classMembers(target) : null);
  }
  return values;
}

/** A class's own members as declared: those the prototype must hold
 * (methods and accessors; a property may be an instance field), the other
 * properties, and the statics. */
function classMembers(symbol) {
  const onPrototype = [];
  const fields = [];
  for (const [name, member] of symbol.members ?? []) {
    if (!named(name)) continue;
    if (member.flags & (ts.SymbolFlags.Method | ts.SymbolFlags.Accessor)) onPrototype.push(name);
    else fields.push(name);
  }
  const statics = [...(symbol.exports?.keys() ?? [])].filter(named);
  return { onPrototype: onPrototype.sort(), fields, statics: statics.sort() };
}

/** A class's own members at run time: its prototype's and its statics. */
function runtimeMembers(cls) {
  return {
    onPrototype: Object.getOwnPropertyNames(cls.prototype)
      .filter((n) => n !== "constructor")
      .sort(),
    statics: Object.getOwnPropertyNames(cls)
      .filter((n) => !["length", "name", "prototype"].includes(n))
      .sort(),
  };
}

/** agent-replay/viewer defines its element on import, which Node can
 * evaluate given stand-ins for the two browser globals it touches then. */
function standInBrowserGlobals() {
  globalThis.HTMLElement ??= class HTMLElement {};
  globalThis.customElements ??= { get: () => undefined, define: () => {} };
}

test("package.json's entries all have declarations", () => {
  assert.deepEqual(
    entries.map((e) => e.specifier),
    [
      "agent-replay",
      "agent-replay/edge",
      "agent-replay/node",
      "agent-replay/file-store",
      "agent-replay/postgres",
      "agent-replay/viewer",
    ],
  );
  for (const e of entries) assert.match(e.types ?? "", /\.d\.ts$/, e.specifier);
});

for (const { specifier, types } of entries) {
  test(`${specifier}: what it exports is what ${types} declares`, async () => {
    if (specifier === "agent-replay/viewer") standInBrowserGlobals();
    const module = await import(specifier);
    const values = declared(types);
    assert.deepEqual(Object.keys(module).sort(), [...values.keys()].sort(), "exported values");
    for (const [name, members] of values) {
      if (!members) continue;
      const runtime = runtimeMembers(module[name]);
      const undeclared = runtime.onPrototype.filter(
        (n) => !members.onPrototype.includes(n) && !members.fields.includes(n),
      );
      assert.deepEqual(undeclared, [], `${name}: methods and accessors not declared`);
      const missing = members.onPrototype.filter((n) => !runtime.onPrototype.includes(n));
      assert.deepEqual(missing, [], `${name}: declared methods and accessors not there`);
      assert.deepEqual(runtime.statics, members.statics, `${name}: static members`);
    }
  });
}
