// ESLint 9 flat config (modelled on Immich's server/eslint.config.mjs): the recommended sets of
// ESLint and typescript-eslint, plus the type-aware rules that catch what tsc does not — a
// promise nobody awaits (a rejected one crashes the process or vanishes), an async callback where
// a sync one is expected, an await on a non-promise.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'bench/results/**', 'test-artifacts/**'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.node },
      ecmaVersion: 2022,
      sourceType: 'module',
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // node:test's describe/it return promises the runner itself awaits (typescript-eslint's
      // documented exception for test frameworks).
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'object-shorthand': ['error', 'always'],
      // Request bodies, rows and OCS payloads are typed at the edges with TypeBox; `any` remains
      // where a value is passed through untouched (test results, driver rows), as in Immich.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // The admin page's scripts run in the browser.
    files: ['src/web/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // The OCS XML tests match the output's indentation literally; "\n  <data>" reads as what the
    // client receives, "\n {2}<data>" does not.
    files: ['test/**/*.ts'],
    rules: { 'no-regex-spaces': 'off' },
  },
  {
    // Plain JavaScript (scripts, bench, bin) has no type information.
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
