// The pi versions this package is tested in: the one list that the setup scripts (scripts/hosts.mjs,
// scripts/setup-hosts.sh), every host test, `doctor` and the version table in docs/hosts.md read or are checked against.
// `install`: "npm" — a plain `npm install` of the package; "bundle" — pi >= 0.99, whose pinned dependencies are not
// all on the registry: the published tarball unpacked and its self-contained SDK bundle imported by path.
// `node`: the Node major the host runs on in the tests (pi >= 0.75 needs Node >= 22.19).

/** Every tested pi version, oldest first. */
export const TESTED_HOSTS = Object.freeze([
  Object.freeze({ version: "0.74.2", install: "npm", node: 20 }),
  Object.freeze({ version: "0.75.5", install: "npm", node: 22 }),
  Object.freeze({ version: "0.87.1", install: "npm", node: 22 }),
  Object.freeze({ version: "0.99.1", install: "bundle", node: 22 }),
  Object.freeze({ version: "1.0.3", install: "bundle", node: 22 }),
  Object.freeze({ version: "1.3.0", install: "bundle", node: 22 }),
  Object.freeze({ version: "1.5.2", install: "bundle", node: 22 }),
  Object.freeze({ version: "1.6.0", install: "bundle", node: 22 }),
]);

/** The oldest and the newest tested version. */
export const OLDEST_TESTED = TESTED_HOSTS[0].version;
export const NEWEST_TESTED = TESTED_HOSTS[TESTED_HOSTS.length - 1].version;

/** -1, 0 or 1 as version a is older than, equal to or newer than b (numeric x.y.z; a pre-release tag is ignored). */
export function compareVersions(a, b) {
  const parts = (v) => String(v).replace(/^v/, "").split(/[-+]/)[0].split(".").map((n) => Number.parseInt(n, 10) || 0);
  const pa = parts(a), pb = parts(b);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) < (pb[i] ?? 0) ? -1 : 1;
  return 0;
}
