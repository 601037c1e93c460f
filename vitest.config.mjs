import { defineConfig } from 'vitest/config'

// Only the conformance suite runs under vitest; every other JS test is ava.
export default defineConfig({
  test: {
    globals: true,
    include: ['__test__/conformance/**/*.test.mjs'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One process: the native addon and the local server are in-process.
    pool: 'forks',
    fileParallelism: false,
  },
})
