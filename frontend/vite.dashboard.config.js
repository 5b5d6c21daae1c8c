// The dashboard app: a separate bundle (dashboard.js + dashboard.css, fixed names) so the element stays small.
import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'
import { fileURLToPath } from 'node:url'

const outDir = fileURLToPath(new URL('../annotation_tasks/static/annotation_tasks/dist', import.meta.url))

export default defineConfig({
  plugins: [vue()],
  define: { 'process.env.NODE_ENV': '"production"' },
  build: {
    outDir,
    emptyOutDir: false, // shared with the annotator build
    cssCodeSplit: false,
    target: 'es2020',
    rollupOptions: {
      input: fileURLToPath(new URL('./src/dashboard/main.js', import.meta.url)),
      output: {
        entryFileNames: 'dashboard.js',
        chunkFileNames: 'dashboard-[name].js',
        assetFileNames: (info) => ((info.names || [info.name]).some((n) => n && n.endsWith('.css')) ? 'dashboard.css' : 'dashboard-[name][extname]'),
      },
    },
  },
})
