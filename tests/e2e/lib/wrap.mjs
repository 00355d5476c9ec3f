// The package's extension loaded through a wrapper that changes what it sees of pi (for the hint fallbacks).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { testDir } from "./harness.mjs";
import { PKG_DIR } from "./hosts.mjs";

/**
 * A wrapper extension file (removed with test `t`): `throwingSend` — its `pi.sendMessage` throws (a host that cannot
 * steer a message into the loop); `ui` — its handlers get the host's context with a UI whose notes are recorded.
 * What happened is in `globalThis.__ptnWrap`: `{ sends, notes: [{text, level}] }`.
 */
export function wrappedExtension(t, { throwingSend = false, ui = false } = {}) {
  const { dir } = testDir(t, "ptn-wrap-");
  const file = join(dir, "wrap.mjs");
  writeFileSync(
    file,
    `import ext from ${JSON.stringify(pathToFileURL(join(PKG_DIR, "extension.js")).href)};
export default function (pi) {
  const seen = (globalThis.__ptnWrap = { sends: 0, notes: [] });
  const api = Object.create(pi);
  if (${throwingSend}) api.sendMessage = () => { seen.sends++; throw new Error("this host cannot steer a message (test)"); };
  if (${ui}) {
    const ui = { notify: (text, level) => seen.notes.push({ text, level }) };
    // The host's context as it is (its methods bound to it), with a UI.
    const withUi = (ctx) => new Proxy(ctx, {
      get(target, key) {
        if (key === "hasUI") return true;
        if (key === "ui") return ui;
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    api.on = (event, handler) => pi.on(event, (e, ctx) => handler(e, ctx ? withUi(ctx) : ctx));
  }
  return ext(api);
}
`,
  );
  t.after(() => delete globalThis.__ptnWrap);
  return file;
}
