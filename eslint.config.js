// @ts-check
import js from "@eslint/js";
import regexp from "eslint-plugin-regexp";
import simpleImportSort from "eslint-plugin-simple-import-sort";
import tseslint from "typescript-eslint";

const restrict = (patterns, message) => ({
  "no-restricted-imports": ["error", { patterns: patterns.map((pattern) => ({ ...pattern, message })) }],
});

export default tseslint.config(
  // The lint fixtures hold deliberately bad code: test/lint-fixtures.test.ts lints them and expects each finding.
  { ignores: ["node_modules/", "data/", "coverage/", "test/fixtures/lint/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // A regular expression on client input must run in time linear in its length (and one that
    // backtracks exponentially on an ambiguous alternation is worse still).
    plugins: { regexp },
    rules: {
      "regexp/no-dupe-disjunctions": ["error", { report: "all" }],
      "regexp/no-super-linear-backtracking": ["error", { report: "potential" }],
      "regexp/no-super-linear-move": ["error", { ignoreSticky: false, ignorePartial: false }],
    },
  },
  {
    // Imports in one order everywhere (`npm run format` or `eslint --fix` sorts them): node built-ins,
    // packages, then the project's own modules.
    plugins: { "simple-import-sort": simpleImportSort },
    rules: {
      "simple-import-sort/imports": ["error", { groups: [["^\\u0000", "^node:", "^@?\\w", "^", "^\\."]] }],
      "simple-import-sort/exports": "error",
    },
  },
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", Buffer: "readonly", URL: "readonly" } },
    rules: {
      "no-console": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  // Dependencies point inward: the domain knows nothing else, the ports and the application only
  // effect. Allow-lists, not lists of adapters' packages: a client package an adapter brings (a new
  // store's driver) is kept out of the core without naming it here.
  {
    files: ["src/domain/**"],
    rules: restrict([{ regex: "^(?!\\.)" }, { regex: "/(ports|application|adapters)/" }], "src/domain is pure: no package, no outer layer"),
  },
  {
    files: ["src/ports/**"],
    rules: restrict([{ regex: "^(?!effect(/|$)|\\.)" }, { regex: "/(application|adapters)/" }], "ports depend only on the domain and effect"),
  },
  {
    files: ["src/application/**"],
    rules: restrict([{ regex: "^(?!effect(/|$)|\\.)" }, { regex: "/adapters/" }], "the application reaches the world only through ports (and uses effect)"),
  },
  {
    files: ["test/**", "bench/**", "src/adapters/cli/**", "bin/**", "verifier/verify-bill.mjs", "verifier/check-vectors.mjs"],
    rules: { "no-console": "off" },
  },
);
