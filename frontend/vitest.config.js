import { defineConfig } from 'vitest/config'
import vue from '@vitejs/plugin-vue'

export default defineConfig({
  plugins: [vue({ customElement: /\.ce\.vue$/ })],
  test: {
    environment: 'happy-dom',
    include: ['tests/**/*.test.js'],
    css: true,
  },
})
