// Lint (`npm run lint`, run by CI): type-aware rules where the type checker catches what review
// misses — a promise nobody awaits or handles, a promise passed where a callback's result is
// ignored — plus type-only imports written as such, and no `any` in product code (an `any` that
// must stay carries an eslint-disable comment saying why).
import tseslint from 'typescript-eslint';

const PRODUCT = [
  'gateway/**/*.ts',
  'transport/**/*.ts',
  'domain/**/*.ts',
  'schema/**/*.ts',
  'resolvers/**/*.ts',
  'rest-adapter/**/*.ts',
  'trpc/**/*.ts',
  'migrations/**/*.ts',
  'console/src/**/*.{ts,tsx}',
  'clients/typescript/src/**/*.ts',
  'clients/typescript/bin/**/*.ts',
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/generated/**',
      'clients/typescript/trpc/**',
      'clients/go/**',
      'clients/rust/**',
      'clients/python/**',
      'coverage/**',
      'bench/.tmp/**',
      'data/**',
      '**/*.cjs',
      '**/*.mjs',
      '**/*.js',
    ],
  },
  {
    files: ['**/*.{ts,tsx,mts}'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
    },
  },
  {
    files: PRODUCT,
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
);
