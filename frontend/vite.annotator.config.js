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
    target: 'es2020',
    sourcemap: false,
  },
})
