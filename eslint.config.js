import neostandard from 'neostandard';

// neostandard (fastify/demo's choice) with its TypeScript support and without its style
// rules: the code keeps its formatting, and the linter looks for mistakes only.
export default [
  ...neostandard({ ts: true, noStyle: true, ignores: ['dist/**', 'src/generated/**', 'bench/**', 'data/**'] }),
  {
    rules: {
      // Row fields are named as their SQL columns are (service_id, values_json).
      camelcase: 'off',
      // `void promise` marks a promise left to run on its own, on purpose.
      'no-void': 'off',
      // Loops that wait on a flag or count set by callbacks (while (running) await ...).
      'no-unmodified-loop-condition': 'off',
    },
  },
  {
    // The generated clients' calls exist for the type checker: each variable is a typed answer.
    files: ['test/clients/*.calls.ts'],
    rules: { '@typescript-eslint/no-unused-vars': 'off' },
  },
];
