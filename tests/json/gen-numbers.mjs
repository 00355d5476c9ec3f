// Prints the number fixture checked by tests/json_numbers.rs: what Node itself answers for
// String(x), x.toFixed(0..3) and JSON.parse(literal).
//
//   node tests/json/gen-numbers.mjs > tests/fixtures/numbers/node-numbers.tsv
//
// Rows (tab-separated):
//   N  <bits as 16 hex digits>  <String(x)>  <x.toFixed(0)>  <x.toFixed(1)>  <x.toFixed(2)>  <x.toFixed(3)>
//   P  <JSON number literal>    <bits of JSON.parse(literal) as 16 hex digits>
// The generator is deterministic (xorshift with a fixed seed), so re-running it gives the same file.

const view = new DataView(new ArrayBuffer(8));
const bitsOf = (x) => { view.setFloat64(0, x); return view.getBigUint64(0); };
const fromBits = (b) => { view.setBigUint64(0, BigInt.asUintN(64, b)); return view.getFloat64(0); };
const hex = (x) => bitsOf(x).toString(16).padStart(16, "0");
const next = (x) => fromBits(bitsOf(x) + 1n);
const prev = (x) => fromBits(bitsOf(x) - 1n);

let seed = 0x9e3779b97f4a7c15n;
const rand64 = () => {
  seed ^= (seed << 13n) & 0xffffffffffffffffn;
  seed ^= seed >> 7n;
  seed ^= (seed << 17n) & 0xffffffffffffffffn;
  return seed;
};
const randInt = (n) => Number(rand64() % BigInt(n));

const nums = [];
const add = (...xs) => { for (const x of xs) nums.push(x, -x); };
const addPos = (...xs) => { for (const x of xs) nums.push(x); };
add(0, NaN, Infinity, Number.MAX_VALUE, Number.MIN_VALUE, 2.2250738585072014e-308, prev(2.2250738585072014e-308));
for (let i = 1; i <= 64; i++) add(i, i + 0.5, i / 8);
for (let k = 0; k <= 64; k++) { const p = 2 ** k; addPos(p, p + 1, p - 1, next(p), prev(p)); }
for (let k = -325; k <= 308; k++) { const p = Number(`1e${k}`); addPos(p, next(p), prev(p)); }
// An exact tie between two shortest digit strings: JavaScript takes the even one (…797.2).
add(fromBits(0xc310565a94b4e5f5n));
for (const edge of [1e21, 1e-7, 1e-6, 1e15, 1e16, 1e17]) add(edge, next(edge), prev(edge), next(next(edge)), prev(prev(edge)));
// toFixed halfway cases: n + 5·10^-(d+1) for d = 0..3, exact in binary or not.
for (let i = 0; i < 300; i++) {
  const d = randInt(4);
  const n = randInt(10 ** (1 + randInt(6)));
  add(Number(`${Math.floor(n / 10 ** d)}.${String(n % 10 ** d).padStart(d, "0")}5`.replace(/\.5$/, ".5")));
}
for (let i = 0; i < 40; i++) add((randInt(1000) * 2 + 1) / 2 ** (1 + randInt(10)));
// Random bit patterns (any exponent) and random "short" decimals (the common case in sessions).
for (let i = 0; i < 700; i++) { const x = fromBits(rand64()); if (!Number.isNaN(x)) addPos(x); }
for (let i = 0; i < 300; i++) addPos((randInt(2) ? 1 : -1) * randInt(1e6) / 10 ** randInt(8));

const rows = [];
for (const x of nums) {
  const fixed = [0, 1, 2, 3].map((d) => x.toFixed(d));
  rows.push(["N", hex(x), String(x), ...fixed].join("\t"));
}

const digits = (n) => Array.from({ length: n }, (_, i) => String(randInt(10) || (i === 0 ? 1 : 0))).join("");
const literals = ["0", "-0", "0.0", "1e400", "-1e400", "1e-400", "2.2250738585072011e-308", "2.2250738585072012e-308",
  "9007199254740993", "9007199254740992.5", "4.9406564584124654e-324", "2.4703282292062327e-324", "2.4703282292062328e-324",
  "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "123456789012345678901234567890",
  "0.1000000000000000055511151231257827", "0.1000000000000000055511151231257828", "1e23", "8.98846567431158e307",
  "7.2057594037927933e16", "3.0000000000000004", "1E5", "1e+5", "-1.5E-5", "100000000000000000000000e-10"];
for (let i = 0; i < 900; i++) {
  const int = randInt(8) === 0 ? "0" : digits(1 + randInt(randInt(4) === 0 ? 40 : 18));
  const frac = randInt(2) ? "." + digits(1 + randInt(randInt(4) === 0 ? 30 : 10)) : "";
  const exp = randInt(3) ? "" : "e" + ["", "+", "-"][randInt(3)] + randInt(randInt(2) ? 30 : 340);
  literals.push((randInt(3) === 0 ? "-" : "") + int + frac + exp);
}
for (const lit of literals) rows.push(["P", lit, hex(JSON.parse(lit))].join("\t"));
console.log(rows.join("\n"));
