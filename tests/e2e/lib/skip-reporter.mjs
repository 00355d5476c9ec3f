// A node:test reporter for the e2e driver (tests/e2e/e2e.test.mjs): one JSON line per skipped test — its file's name,
// the test's name and the reason it gave — so the driver can hold a host's skips against its list of known ones.
import { basename } from "node:path";

export default async function* skipReporter(source) {
  for await (const { type, data } of source) {
    if (type !== "test:pass" && type !== "test:fail") continue;
    if (data.skip === undefined || data.skip === false) continue;
    yield `${JSON.stringify({ file: data.file ? basename(data.file) : null, name: data.name, reason: data.skip === true ? "" : String(data.skip) })}\n`;
  }
}
