// The annotator element: library mode, one IIFE file with its styles inlined (no CSS file, no chunks).
import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'
import { fileURLToPath } from 'node:url'

const outDir = fileURLToPath(new URL('../annotation_tasks/static/annotation_tasks/dist', import.meta.url))

export default defineConfig({
  plugins: [vue({ customElement: /\.ce\.vue$/ })],
  define: {
    'process.env.NODE_ENV': '"production"',
    // the element uses the Composition API only: drop the Options API and devtools hooks from Vue
    __VUE_OPTIONS_API__: 'false',
    __VUE_PROD_DEVTOOLS__: 'false',
    __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
  },
  build: {
    outDir,
    emptyOutDir: false, // shared with the dashboard build
    lib: {
      entry: fileURLToPath(new URL('./src/annotator/main.js', import.meta.url)),
      name: 'FactcrowdAnnotator',
      formats: ['iife'],
      fileName: () => 'factcrowd-annotator.js',
    },
    // ES2022 (Chrome 94, Firefox 93, Safari 16.4: the browsers crowd workers bring in 2026): ~300 bytes of gzip
    // under es2020, kept under the element's 50 KB budget (tests/bundleSize.test.js). Terser instead of the default
    // minifier was measured larger. The IIFE library build folds dynamic imports back into the one file, so lazy
    // protocol folders would need an ES-module build behind a loader (docs/annotator-api.md).
    target: 'es2022',
    sourcemap: false,
  },
})
