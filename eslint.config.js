// Lint doubles as the size policy: complexity, depth, params and statements are capped so modules stay
// small and readable; tests get more room for nesting and length.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'sandbox/console/static/vendor/', '.sandbox/', 'artifacts/', '.scratch/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      complexity: ['error', 10],
      'max-depth': ['error', 3],
      'max-params': ['error', 4],
      'max-statements': ['error', 20],
      'max-nested-callbacks': ['error', 4],
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      '@typescript-eslint/explicit-function-return-type': ['error', { allowExpressions: true, allowTypedFunctionExpressions: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Module boundaries: controllers see the cloud only through the provider interface (src/cloud), and
    // simcloud's wire package (simulator/api) stays free of the server, the CCM and the sandbox.
    files: ['src/controllers/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/simcloud/**', '**/simulator/**'], message: 'controllers talk only to src/cloud and src/kube' }] },
      ],
    },
  },
  {
    // lib/: helpers shared by the CCM, simcloud, the sandbox and the scripts; they depend on nothing of ours.
    files: ['lib/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/src/**', '**/simulator/**', '**/sandbox/**', '**/scripts/**', '**/test/**'], message: 'lib/ depends only on node built-ins' },
          ],
        },
      ],
    },
  },
  {
    files: ['simulator/api/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/server/**', '**/src/**', '**/sandbox/**'], message: 'simulator/api depends only on zod and node built-ins' }] },
      ],
    },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: {
      'max-nested-callbacks': ['error', 6],
      'max-statements': ['error', 40],
      'max-lines': 'off',
      '@typescript-eslint/explicit-function-return-type': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // Comments stand on their own: they explain, they do not send the reader to documents outside the
    // repository.
    files: ['src/**', 'sandbox/**', 'simulator/**', 'scripts/**', 'test/**', 'lib/**', 'bin/**', '*.js'],
    rules: {
      'no-warning-comments': [
        'error',
        { terms: ['ccm-semantics', 'style guide', 'style-guide', 'prior-art', 'control-plane.md', 'shared/reference'], location: 'anywhere' },
      ],
    },
  },
  {
    files: ['sandbox/console/static/**/*.js', '*.js', 'scripts/**/*.mjs', 'bin/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Plain JavaScript runs in Node or the browser; TypeScript's checker, not no-undef, knows the globals.
    files: ['sandbox/console/static/**/*.js', '*.js', 'scripts/**/*.mjs', 'bin/*.mjs'],
    rules: { 'no-undef': 'off', '@typescript-eslint/explicit-function-return-type': 'off' },
  },
);
