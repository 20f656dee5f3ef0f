// Lint rules: the size and complexity budgets of the conventions, type-aware promise checks, and
// the bans that keep time, timers and the environment behind their injected ports.
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
    },
  },
  {
    files: ["src/**/*.ts"],
    ignores: ["src/**/*.test.ts"],
    rules: {
      complexity: ["warn", 12],
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
  {
    files: ["eslint.config.js"],
    ...tseslint.configs.disableTypeChecked,
  },
);
