// Lint rules: the size and complexity budgets of the conventions, type-aware promise checks, the
// bans that keep time, timers and the environment behind their injected ports, the import
// boundaries between the folders of src, and the purity of the unit test layer.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const timeBans = {
  "no-restricted-globals": [
    "error",
    { name: "setTimeout", message: "Use the injected Clock (src/clock)." },
    { name: "setInterval", message: "Use the injected Clock (src/clock)." },
    { name: "clearTimeout", message: "Use the injected Clock (src/clock)." },
  ],
  "no-restricted-syntax": [
    "error",
    {
      selector: "MemberExpression[object.name='Date'][property.name='now']",
      message: "Use the injected Clock (src/clock).",
    },
    {
      selector: "NewExpression[callee.name='Date'][arguments.length=0]",
      message: "Use the injected Clock (src/clock).",
    },
    {
      selector: "MemberExpression[object.name='process'][property.name='env']",
      message: "Only src/cli reads the environment; pass configuration in.",
    },
  ],
};

// Import boundaries: the arrows between the folders of src that must never exist. Each key of
// `boundaries` is a folder of src whose files (tests included) may not import the folders listed
// for it; src/cli, the composition root, may import everything, and nothing outside it src/cli.
// (no-restricted-imports is one rule: each block in srcImportRules lists every group that applies
// to its files, since a later block replaces an earlier one's options.)
const forbid = (from, to, why) => ({ group: [`**/${to}`, `**/${to}/**`], message: `${from} must not import src/${to}: ${why}` });
const outsideCli = [forbid("src (outside src/cli)", "cli", "src/cli is the composition root; move what is shared out of it.")];
const boundaries = {
  api: [forbid("src/api", "kube", "the API types are plain data; the kube edge depends on them, not the reverse.")],
  template: [forbid("src/template", "kube", "templates render plain data; pass what they need in.")],
  progressivesync: [
    forbid("src/progressivesync", "kube", "progressive sync decides on plain data; the controller applies its decisions."),
    forbid("src/progressivesync", "controller", "the controller drives progressive sync, not the reverse."),
  ],
  generators: [forbid("src/generators", "controller", "the controller runs the generators, not the reverse; pass ports in.")],
  kube: [forbid("src/kube", "controller", "the kube edge knows nothing of the controller built on it.")],
  syncwaves: [
    forbid(
      "src/syncwaves",
      "controller",
      "the sync engine and the ApplicationSet controller are separate loops; share through src/json, src/project or src/api.",
    ),
  ],
  manager: [forbid("src/manager", "controller", "the manager runs the loops; what they share lives in the layers below both.")],
};

// The unit layer (src/**/*.test.ts and test/unit) is pure: no child processes, sockets, servers or
// real-time sleeps, and none of the test helpers that start them. A test that needs one of them is an
// integration test (vitest.config.ts).
const UNIT_LAYER = "The unit layer is pure: move the test to test/integration (see vitest.config.ts).";
const unitLayerImports = {
  paths: [
    "node:child_process",
    "child_process",
    "node:net",
    "net",
    "node:http",
    "http",
    "node:https",
    "https",
    "node:http2",
    "node:dgram",
    "node:timers/promises",
    "ssh2",
  ].map((name) => ({ name, message: UNIT_LAYER })),
  patterns: [
    {
      group: [
        // the Go template oracle, the local control plane, and the other layers' helpers
        "**/oracle/oracle.js",
        "**/test/oracle/**",
        "**/test/cluster/**",
        "**/../cluster/*",
        "**/integration/**",
        "**/e2e/**",
      ],
      message: UNIT_LAYER,
    },
  ],
};
const unitLayerBans = {
  "no-restricted-globals": [
    "error",
    { name: "setTimeout", message: `Move time with FakeClock (src/clock). ${UNIT_LAYER}` },
    { name: "setInterval", message: `Move time with FakeClock (src/clock). ${UNIT_LAYER}` },
  ],
};

// Package indexes that load far more than src uses, paid in resident memory at start
// (docs/controller.md#memory-at-start): src takes what it needs from their own modules, and their
// types from the index.
const heavyIndex = (name, instead) => ({
  name,
  allowTypeImports: true,
  message: `its package index loads modules src does not use; ${instead}`,
});
const heavyIndexes = {
  paths: [
    heavyIndex("undici", "import from src/undici.ts (or add what is missing there)."),
    heavyIndex(
      "@kubernetes/client-node",
      "import its small modules (@kubernetes/client-node/dist/...), or import() the index where it is needed.",
    ),
    heavyIndex(
      "@kubernetes/client-node/dist/gen/http/http.js",
      "it loads undici's index through client-node's fetch library; use src/kube/request-context.ts.",
    ),
    heavyIndex("@smithy/protocol-http", "only AWS calls need it: import() it where the call is made."),
    heavyIndex("node:http", "an import of it reads every export, and some load Node's fetch library; use src/node-http.ts."),
    {
      name: "re2js",
      allowTypeImports: true,
      message: "it builds large Unicode tables when loaded; compile with src/re2.ts, which loads it on first use.",
    },
    { name: "yaml", allowTypeImports: true, message: "use src/yaml.ts, which loads it on first use." },
  ],
};

/** The no-restricted-imports rule with these paths and pattern groups. */
function restrictImports(...groups) {
  return {
    "no-restricted-imports": ["error", { paths: groups.flatMap((g) => g.paths ?? []), patterns: groups.flatMap((g) => g.patterns ?? []) }],
  };
}

/** The import rules of src: the boundaries of each folder, and the unit layer's bans for its tests. */
function srcImportRules() {
  const blocks = [
    { files: ["src/**/*.ts"], rules: restrictImports(heavyIndexes) },
    { files: ["src/**/*.ts"], ignores: ["src/cli/**"], rules: restrictImports({ patterns: outsideCli }, heavyIndexes) },
    { files: ["src/**/*.test.ts"], ignores: ["src/cli/**"], rules: restrictImports({ patterns: outsideCli }, unitLayerImports) },
    { files: ["src/cli/**/*.test.ts"], rules: restrictImports(unitLayerImports) },
  ];
  for (const [folder, patterns] of Object.entries(boundaries)) {
    blocks.push(
      { files: [`src/${folder}/**/*.ts`], rules: restrictImports({ patterns: [...outsideCli, ...patterns] }, heavyIndexes) },
      { files: [`src/${folder}/**/*.test.ts`], rules: restrictImports({ patterns: [...outsideCli, ...patterns] }, unitLayerImports) },
    );
  }
  return blocks;
}

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**", "test/cluster/**/*.go"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      // Prettier (npm run format) wraps code at 140 columns; what it cannot wrap (comments) is held here.
      // Strings, template literals and regular expressions stay whole: they carry Argo CD's messages and patterns.
      "max-len": ["error", { code: 140, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true }],
    },
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/**/*.test.ts"],
    rules: {
      complexity: ["error", 12],
      "max-depth": ["error", 4],
      "max-params": ["error", 4],
      "@typescript-eslint/explicit-module-boundary-types": "error",
    },
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/clock/**", "src/kube/**", "src/cli/**", "src/**/*.test.ts"],
    rules: timeBans,
  },
  {
    files: ["src/cli/**/*.ts"],
    rules: { "no-restricted-syntax": "off" },
  },
  {
    files: ["**/*.test.ts", "test/**/*.ts", "bench/**/*.ts"],
    rules: {
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
    },
  },
  ...srcImportRules(),
  {
    files: ["src/**/*.test.ts", "test/unit/**/*.ts"],
    rules: unitLayerBans,
  },
  {
    files: ["test/unit/**/*.ts"],
    rules: restrictImports(unitLayerImports),
  },
  {
    // A regex as an expected property value is an object to vitest's equality, and an object with no
    // own keys matches anything: the assertion would pass whatever the text is.
    files: ["**/*.test.ts", "test/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.property.name=/^(toMatchObject|toEqual|toStrictEqual)$/] Property > Literal[regex]",
          message: "A regex property value matches anything here: use expect.stringMatching(/…/).",
        },
      ],
    },
  },
  {
    files: ["eslint.config.js"],
    ...tseslint.configs.disableTypeChecked,
  },
);
